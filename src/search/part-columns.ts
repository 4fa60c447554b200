// The columns a part index (./part-index.ts) keeps of each page it read, and the tests a search
// makes of a stored part: its summary, the codes it names, whether it passes filters and whether
// it matches every word of a reading.
import type { Part } from "../api/schemas";
import { ARRAY_HEADER, MAP_ENTRY, OBJECT, SLOT, stringBytes, TYPED_ARRAY } from "./heap-sizes";
import type { WordIndex } from "./word-index";

/**
 * A summary points to get_part, which has the whole record: a title longer than this is cut (with
 * "…"), so that no title, however long, costs a model thousands of tokens in every search.
 */
const SUMMARY_TITLE_CHARS = 200;

export function summaryTitle(title: string): string {
  if (title.length <= SUMMARY_TITLE_CHARS) return title;
  let end = SUMMARY_TITLE_CHARS - 1;
  if (/[\uD800-\uDBFF]/.test(title.charAt(end - 1))) end--; // never half a surrogate pair
  return `${title.slice(0, end)}…`;
}

export const FILTER_KINDS = ["process", "material", "standard", "criticality", "category"] as const;
export type FilterKind = (typeof FILTER_KINDS)[number];

export interface PartSummary {
  id: string;
  title: string;
  versionName?: string;
  serialId: string;
  processId?: string;
  materialId?: string;
  standardIds?: string[];
  published: boolean;
}

/** One word of a search's text: what of a part it may match. */
export interface QueryWord {
  /** Stems a word of the part's own text may start with: the word's, or near ones for a typo. */
  prefixes: readonly string[];
  /** Referenced records whose names or family words match it, by kind: a part naming one matches. */
  codes: Partial<Record<FilterKind, readonly string[]>>;
  /** The word as the text wrote it (folded, not stemmed), for ranking exact matches first. */
  written?: string;
  /** Read as near words because it matched nothing as written: its matches rank last. */
  typo?: boolean;
}

/** What a search asks of each part: every filter (any of its codes), and every word of one reading. */
export interface CompiledQuery {
  /** Codes by kind, and `version`: the version names a part may have (named in the text). */
  filters: Partial<Record<FilterKind | "version", readonly string[]>>;
  /** Each reading is a list of words that must all match the part; empty: no text. */
  readings: QueryWord[][];
}

/** A match: the part's position, and a bit for each word of its reading that only a referenced record matched. */
export interface Match {
  position: number;
  reading: number;
  viaReference: number;
}

/** Distinct values of one field, numbered from 1 (0 stands for "absent"). */
export class Codes {
  readonly #numbers = new Map<string, number>();
  readonly values: string[] = [""];
  bytes = 0;

  intern(value: string): number {
    let number = this.#numbers.get(value);
    if (number === undefined) {
      number = this.values.length;
      this.values.push(value);
      this.#numbers.set(value, number);
      this.bytes += stringBytes(value) + MAP_ENTRY + SLOT;
    }
    return number;
  }

  numberOf(value: string): number | undefined {
    return this.#numbers.get(value);
  }
}

/** The three single-valued codes of a part, in `singles`. */
export const VERSION = 0;
export const PROCESS = 1;
export const MATERIAL = 2;
export const SINGLES = 3;
/** The three lists of codes of a part, in `lists`. */
export const LIST_KINDS = ["standard", "criticality", "category"] as const;
export const LISTS = LIST_KINDS.length;

/** A part's standards, criticalities and categories, each list at most MAX_CODES_PER_LIST long. */
export function codeLists(part: Part): [string[], string[], string[]] {
  const cut = (codes: string[] | undefined) => (codes ?? []).slice(0, MAX_CODES_PER_LIST);
  return [cut(part.standardIds), cut(part.criticalityIds), cut(part.categoryIds)];
}

export interface StoredPage {
  ids: string[];
  titles: string[];
  serials: string[];
  /** SINGLES numbers per part (0: absent). */
  singles: Uint32Array;
  published: Uint8Array;
  /** Where each part's list of each kind starts in `listed`: LISTS per part, and the end. */
  listStart: Uint32Array;
  listed: Uint32Array;
}

/** Codes of each list a part's index keeps (an upstream could send any number). */
const MAX_CODES_PER_LIST = 200;

/** At least the bytes storing these parts' columns takes (./heap-sizes.ts), every code counted as new; their words aside. */
export function storageEstimate(parts: readonly Part[]): number {
  const n = parts.length;
  let bytes = MAP_ENTRY + OBJECT + 3 * (ARRAY_HEADER + n * SLOT) + 4 * TYPED_ARRAY;
  bytes += n * (SINGLES * 4 + 1 + LISTS * 4 + MAP_ENTRY);
  const code = (value: string | undefined) =>
    value === undefined ? 0 : stringBytes(value) + MAP_ENTRY + 2 * SLOT;
  for (const part of parts) {
    bytes += stringBytes(part.id) + stringBytes(summaryTitle(part.title)) + stringBytes(part.serialId);
    bytes += code(part.versionName) + code(part.processId) + code(part.materialId);
    for (const list of codeLists(part)) for (const value of list) bytes += code(value);
  }
  return bytes;
}

/** The code tables of an index: each field's distinct values, numbered. */
export interface CodeTables {
  version: Codes;
  process: Codes;
  material: Codes;
  standard: Codes;
  criticality: Codes;
  category: Codes;
}

/** A test of one stored part. */
export type PartTest = (page: StoredPage, j: number) => boolean;

/** The summary of a stored part. */
export function summaryOf(stored: StoredPage, j: number, codes: CodeTables): PartSummary {
  const single = (k: number, codes: Codes) =>
    codes.values[stored.singles[j * SINGLES + k] as number] || undefined;
  const versionName = single(VERSION, codes.version);
  const processId = single(PROCESS, codes.process);
  const materialId = single(MATERIAL, codes.material);
  const start = stored.listStart[j * LISTS] as number;
  const end = stored.listStart[j * LISTS + 1] as number;
  const standardIds = Array.from(
    stored.listed.subarray(start, end),
    (n) => codes.standard.values[n] as string,
  );
  return {
    id: stored.ids[j] as string,
    title: stored.titles[j] as string,
    ...(versionName !== undefined && { versionName }),
    serialId: stored.serials[j] as string,
    ...(processId !== undefined && { processId }),
    ...(materialId !== undefined && { materialId }),
    ...(standardIds.length > 0 && { standardIds }),
    published: stored.published[j] === 1,
  };
}

/** The codes a stored part names, by kind. */
export function referencesOf(stored: StoredPage, j: number, codes: CodeTables): Record<FilterKind, string[]> {
  const single = (k: number, codes: Codes) => {
    const value = codes.values[stored.singles[j * SINGLES + k] as number];
    return value ? [value] : [];
  };
  const list = (k: number, codes: Codes) =>
    Array.from(
      stored.listed.subarray(stored.listStart[j * LISTS + k], stored.listStart[j * LISTS + k + 1]),
      (n) => codes.values[n] as string,
    );
  return {
    process: single(PROCESS, codes.process),
    material: single(MATERIAL, codes.material),
    standard: list(0, codes.standard),
    criticality: list(1, codes.criticality),
    category: list(2, codes.category),
  };
}

/**
 * A test of one part against every word of a reading: -1 when a word matches nothing of it,
 * else a bit for each word that only a referenced record matched.
 */
export function compileReading(
  words: WordIndex,
  codes: CodeTables,
  reading: readonly QueryWord[],
  from: number,
  to: number,
): CompiledReading {
  const tests = reading.map((word) => ({
    own: words.mask(word.prefixes, from, to),
    referenced: compileFilters(codes, word.codes, true),
  }));
  let gate: Uint8Array | undefined;
  for (const { own, referenced } of tests) {
    if (referenced !== undefined) continue;
    if (gate === undefined) gate = own.slice();
    else for (let i = 0; i < gate.length; i++) gate[i] = (gate[i] as number) & (own[i] as number);
  }
  const test = (page: StoredPage, j: number, offset: number) => {
    let via = 0;
    for (let w = 0; w < tests.length; w++) {
      const { own, referenced } = tests[w] as (typeof tests)[number];
      if (own[offset] === 1) continue;
      if (referenced === undefined || !referenced(page, j)) return -1;
      via |= 1 << w;
    }
    return via;
  };
  return { test, gate };
}

/**
 * A test of one part against filters: every kind given must name one of its codes (`any`: some
 * kind must). Undefined when it can match no part read (no code of a kind is on any part).
 */
export function compileFilters(
  codes: CodeTables,
  filters: Partial<Record<FilterKind | "version", readonly string[]>>,
  any = false,
): PartTest | undefined {
  const tests: PartTest[] = [];
  for (const kind of [...FILTER_KINDS, "version"] as const) {
    const wanted = filters[kind];
    if (wanted === undefined) continue;
    const numbers = new Set<number>();
    for (const code of wanted) {
      const number = codes[kind].numberOf(code);
      if (number !== undefined) numbers.add(number);
    }
    if (numbers.size === 0) {
      if (any) continue;
      return undefined;
    }
    if (kind === "process" || kind === "material" || kind === "version") {
      const k = kind === "process" ? PROCESS : kind === "material" ? MATERIAL : VERSION;
      tests.push((page, j) => numbers.has(page.singles[j * SINGLES + k] as number));
    } else {
      const k = LIST_KINDS.indexOf(kind);
      tests.push((page, j) => {
        const end = page.listStart[j * LISTS + k + 1] as number;
        for (let i = page.listStart[j * LISTS + k] as number; i < end; i++)
          if (numbers.has(page.listed[i] as number)) return true;
        return false;
      });
    }
  }
  if (any) return tests.length === 0 ? undefined : (page, j) => tests.some((test) => test(page, j));
  if (tests.length === 1) return tests[0];
  return (page, j) => tests.every((test) => test(page, j));
}

/** Whether a part names a record of the word other than a category; undefined when no part can. */
export function recordsBesideCategories(codes: CodeTables, word: QueryWord): PartTest | undefined {
  const { category: _, ...others } = word.codes;
  return compileFilters(codes, others, true);
}

/**
 * A test of one part against every word of a reading (-1: no match; else a bit per word matched
 * only by a referenced record), and the parts it may match at all (undefined: any).
 */
export interface CompiledReading {
  test: (page: StoredPage, j: number, offset: number) => number;
  gate: Uint8Array | undefined;
}

export function unionOf(masks: Uint8Array[]): Uint8Array {
  const union = (masks[0] as Uint8Array).slice();
  for (const mask of masks.slice(1))
    for (let i = 0; i < union.length; i++) union[i] = (union[i] as number) | (mask[i] as number);
  return union;
}
