// search_reference: the records of one kind, or of every kind, that match a fragment, best first.
// Standards come from list_standards; the other kinds, which the API cannot list, are those the
// token's parts name (./known-records.ts).
import type { CallOptions } from "../client";
import { REFERENCE_KINDS, type ReferenceKind } from "../reference";
import { kindEntry, kindEntryFields } from "./kinds";
import type { KnownRecords } from "./known-records";
import { rankRecords } from "./match";
import type { Progress } from "./page-reader";

/** Most records search_reference returns; more make `complete` false. */
const MAX_REFERENCE_ITEMS = 100;

/**
 * Records that match `text`, best first (all of them without text), of one kind or of every
 * kind (each item then says its `kind`). Standards come from list_standards; the other kinds,
 * which the API cannot list, are the codes on the parts read so far (read first when nothing
 * is), resolved through the reference cache, and every parent of their categories.
 */
export async function searchReference(
  known: KnownRecords,
  kind: ReferenceKind | undefined,
  text: string | undefined,
  call: CallOptions,
  progress?: Progress,
): Promise<{ items: Record<string, unknown>[]; complete: boolean }> {
  const kinds = kind === undefined ? REFERENCE_KINDS : [kind];
  const found = await Promise.all(kinds.map((each) => known.records(each, call, progress)));
  const entries = kinds.flatMap((each, k) =>
    (found[k]?.records ?? []).map((record) => kindEntry(each, record)),
  );
  const ranked = rankRecords(entries, text, kindEntryFields);
  const items = ranked
    .slice(0, MAX_REFERENCE_ITEMS)
    .map(({ kind: each, record }) => (kind === undefined ? { kind: each, ...record } : { ...record }));
  return {
    items,
    complete: found.every((each) => each.complete) && ranked.length <= MAX_REFERENCE_ITEMS,
  };
}
