// search_reference: the records of one kind, or of every kind, that match a fragment, best first.
// Standards come from list_standards, so their answers can be complete; the other kinds, which
// the API cannot list, are those the token's parts name and those read with the get tools
// (./known-records.ts), and an answer about them says so instead of claiming completeness.

import { REFERENCE_KINDS, type ReferenceKind } from "../api/kinds";
import type { CallOptions } from "../client";
import { kindEntry, kindEntryFields } from "./kinds";
import type { KnownRecords } from "./known-records";
import { didYouMean, rankRecords } from "./match";
import type { Progress } from "./page-reader";

/** Most records search_reference returns; more make `complete` false. */
const MAX_REFERENCE_ITEMS = 100;

/** The get tool that reads a record of each kind the API cannot list, by its exact code. */
const READ_WITH: Record<Exclude<ReferenceKind, "standard">, string> = {
  process: "get_process",
  material: "get_material",
  criticality: "get_criticality",
  category: "batch_get_categories",
};

export interface ReferenceSearchResult {
  items: Record<string, unknown>[];
  complete: boolean;
  /** For kinds the API cannot list: the records known are those seen on parts (and read by code). */
  coverage?: "seen on parts";
  /** What the answer covers, and why it is empty when it is. */
  hint?: string;
}

/**
 * Records that match `text`, best first (all of them without text), of one kind or of every
 * kind (each item then says its `kind`).
 */
export async function searchReference(
  known: KnownRecords,
  kind: ReferenceKind | undefined,
  text: string | undefined,
  call: CallOptions,
  progress?: Progress,
): Promise<ReferenceSearchResult> {
  const kinds = kind === undefined ? REFERENCE_KINDS : [kind];
  const found = await Promise.all(kinds.map((each) => known.records(each, call, progress)));
  const entries = kinds.flatMap((each, k) =>
    (found[k]?.records ?? []).map((record) => kindEntry(each, record)),
  );
  const ranked = rankRecords(entries, text, kindEntryFields);
  const items = ranked
    .slice(0, MAX_REFERENCE_ITEMS)
    .map(({ kind: each, record }) => (kind === undefined ? { kind: each, ...record } : { ...record }));
  const unlisted = kinds.filter((each) => each !== "standard") as Exclude<ReferenceKind, "standard">[];
  const partsRead = found.every((each) => each.complete);
  if (unlisted.length === 0) {
    const complete = partsRead && ranked.length <= MAX_REFERENCE_ITEMS;
    if (items.length > 0) return { items, complete };
    return { items, complete, hint: nothingFound(text, entries.length, "standards listed by the API", []) };
  }
  const seen = `${unlisted.map((each) => `${each === "process" ? "processes" : each === "criticality" ? "criticalities" : each === "category" ? "categories" : `${each}s`}`).join(", ")} are known only from the parts that name them${partsRead ? " (every part was read)" : " (the parts read so far)"} and codes read by code: one no part uses is not listed`;
  const readDirectly = `read a code you know directly with ${unlisted.map((each) => READ_WITH[each]).join(" or ")}`;
  if (items.length > 0) {
    return {
      items,
      complete: false,
      coverage: "seen on parts",
      hint: `${capitalised(seen)}; ${readDirectly}.`,
    };
  }
  const closest =
    text === undefined
      ? undefined
      : didYouMean(
          text,
          entries.map((entry) => ({ ...kindEntryFields(entry), label: entry.record.name })),
        );
  return {
    items,
    complete: false,
    coverage: "seen on parts",
    hint: `${nothingFound(text, entries.length, "records known", closest ? [closest] : [])} ${capitalised(seen)}; ${readDirectly}.`,
  };
}

function nothingFound(text: string | undefined, known: number, what: string, closest: string[]): string {
  const among = `among the ${known} ${what}`;
  const near = closest.length > 0 ? ` (${closest.join("; ")})` : "";
  return text === undefined
    ? `Nothing ${among}.`
    : `Nothing matches ${JSON.stringify(text)} ${among}${near}.`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
