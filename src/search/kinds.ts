// The reference records a search meets, by kind, and what of each a fragment or a part's text is
// compared with (search_reference, did-you-mean, reads by code, a part's referenced records).
import type { ReferenceKind, ReferenceRecords } from "../api/kinds";
import type { Searchable } from "./match";
import { materialFamilies, processFamilies } from "./vocabulary";

/** The records of every kind a token knows. */
export type Known = { [K in ReferenceKind]: ReferenceRecords[K][] };
export const NO_RECORDS: Known = { process: [], material: [], standard: [], criticality: [], category: [] };

/** What of each kind of record a fragment is compared with (search_reference, did-you-mean, reads by code). */
export const SEARCHABLE: { [K in ReferenceKind]: (record: ReferenceRecords[K]) => Searchable } = {
  process: (r) => ({ keys: [r.code], names: [r.name], families: processFamilies(r) }),
  material: (r) => ({ keys: [r.code], names: [r.name], families: materialFamilies(r) }),
  standard: (r) => ({
    keys: [r.code],
    names: [r.name],
    qualifiers: r.governingBody ? [r.governingBody] : [],
  }),
  criticality: (r) => ({
    keys: [r.id, r.code],
    names: [r.name],
    qualifiers: r.governingBody ? [r.governingBody] : [],
  }),
  category: (r) => ({ keys: [r.id], names: [r.name] }),
};

/**
 * What of a referenced record a part's search text may match: as above, but not ids made only to
 * be unique (`crit-…`, `cat-…`: every record's id would match "crit" or "cat").
 */
export const PART_TEXT: {
  [K in Exclude<ReferenceKind, "category">]: (record: ReferenceRecords[K]) => Searchable;
} = {
  process: SEARCHABLE.process,
  material: SEARCHABLE.material,
  standard: SEARCHABLE.standard,
  criticality: (r) => ({ keys: [r.code], names: [r.name] }),
};

export type KindEntry = { kind: ReferenceKind; record: ReferenceRecords[ReferenceKind] };

/**
 * One entry per record, kept as long as the record (the reference cache's own object): rankRecords
 * keeps each record's folded words by the object and by the `fields` function, so both must be
 * the same from call to call for a record to be folded once.
 */
const kindEntries = new WeakMap<object, KindEntry>();

export function kindEntry(kind: ReferenceKind, record: object): KindEntry {
  let entry = kindEntries.get(record);
  if (entry === undefined) {
    entry = { kind, record: record as ReferenceRecords[ReferenceKind] };
    kindEntries.set(record, entry);
  }
  return entry;
}

export const kindEntryFields = ({ kind, record }: KindEntry): Searchable =>
  (SEARCHABLE[kind] as (record: unknown) => Searchable)(record);
