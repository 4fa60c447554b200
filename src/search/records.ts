// The full records of the codes found on a token's parts (search_reference and did-you-mean for
// processes, materials, criticalities and categories, which the API cannot list), resolved
// through the reference cache and kept with the index, so that a repeat costs no request however
// many codes there are. One call resolves at most MAX_LOOKUPS_PER_CALL codes it has not met yet;
// the rest wait for the next call, which says so by `complete`.
import type { CallOptions } from "../client";
import type { ReferenceData } from "../data/reference";
import type { FilterKind } from "./part-columns";
import type { PartIndex } from "./part-index";

/** Process and material records have no batch endpoint: this many lookups at once. */
const LOOKUP_CONCURRENCY = 8;
/** Codes one call resolves at most: a GET each for processes and materials, a batch per 50 otherwise. */
const MAX_LOOKUPS_PER_CALL = 500;

/** The records of `codes` (unknown ones left out), and whether every code was resolved. */
export async function resolveCodes(
  reference: ReferenceData,
  index: PartIndex,
  kind: FilterKind,
  codes: readonly string[],
  call: CallOptions,
): Promise<{ records: object[]; complete: boolean }> {
  const unresolved = codes.filter((code) => index.records.recordOf(kind, code) === undefined);
  const now = unresolved.slice(0, MAX_LOOKUPS_PER_CALL);
  if (kind === "criticality" || kind === "category" || kind === "standard") {
    if (now.length > 0) {
      const { items, missing } = await reference.batch(kind, now, call);
      for (const item of items) index.records.keep(kind, keyOf(item), item);
      for (const code of missing) index.records.keep(kind, code, null);
    }
  } else {
    await lookEach(reference, index, kind, now, call);
  }
  const records: object[] = [];
  for (const code of codes) {
    const record = index.records.recordOf(kind, code);
    if (record) records.push(record);
  }
  return { records, complete: unresolved.length <= MAX_LOOKUPS_PER_CALL };
}

/** What a batch record is looked up by: a standard's code, other kinds' id. */
const keyOf = (record: { id?: string; code?: string }) => (record.id ?? record.code) as string;

async function lookEach(
  reference: ReferenceData,
  index: PartIndex,
  kind: "process" | "material",
  codes: readonly string[],
  call: CallOptions,
): Promise<void> {
  const lookup = (code: string) =>
    kind === "process" ? reference.process(code, call) : reference.material(code, call);
  let next = 0;
  const worker = async () => {
    while (next < codes.length) {
      const code = codes[next++] as string;
      try {
        index.records.keep(kind, code, await lookup(code));
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error;
        index.records.keep(kind, code, null);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, codes.length) }, worker));
}
