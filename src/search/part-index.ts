// What one token has read of one view of list_parts, kept compact so that 100,000 parts fit in
// a few tens of MiB: pages of columns (strings only where the summary needs them, codes as small
// numbers) and an inverted index of the words of each part's text (./word-index.ts, with the
// forms ranking needs: ./word-forms.ts), so that a repeat search over the whole catalogue takes
// about a millisecond and no request. A part's place is its position in the listing: (page - 1) × PAGE_SPAN + its offset in the page,
// which is what a cursor carries, so any process can find the same place again.
//
// `bytes` estimates the memory held (./heap-sizes.ts); test/search/measure.ts compares it with the heap.
import { PAGE_SIZE_MAX } from "../api/endpoints";
import type { Part } from "../api/schemas";
import { ARRAY_HEADER, type Budget, MAP_ENTRY, OBJECT, SLOT, stringBytes, TYPED_ARRAY } from "./heap-sizes";
import {
  Codes,
  type CodeTables,
  type CompiledQuery,
  type CompiledReading,
  codeLists,
  compileFilters,
  compileReading,
  type FilterKind,
  LIST_KINDS,
  LISTS,
  MATERIAL,
  type Match,
  type PartSummary,
  type PartTest,
  PROCESS,
  type QueryWord,
  recordsBesideCategories,
  referencesOf,
  SINGLES,
  type StoredPage,
  storageEstimate,
  summaryOf,
  summaryTitle,
  unionOf,
  VERSION,
} from "./part-columns";
import { type MatchRank, rankMatches } from "./ranking";
import { ResolvedRecords } from "./resolved-records";
import { WordForms } from "./word-forms";
import { indexedWords, type PartWords, WordIndex, wordCount } from "./word-index";

/** Parts per page read: the API's largest page, for the fewest round trips. */
export const PAGE_SIZE = PAGE_SIZE_MAX;
/**
 * Positions one page spans: an API may send more parts than asked for (a page of its own size),
 * and each part it sends keeps its own place; a page of more than this stops the index there.
 */
export const PAGE_SPAN = 4 * PAGE_SIZE;

/**
 * Where an index stops short of the listing's end, and why: its memory budget ran out, the API
 * sent an empty page that said more parts follow, a page held more parts than PAGE_SPAN, or the
 * listing did not end by MAX_POSITION.
 */
export type StopReason = "budget" | "hollow" | "endless" | "crowded";

const UNLIMITED: Budget = { claim: () => true, settle: () => {} };

/**
 * The furthest position a search reaches: a listing still going there is taken as endless (a
 * cursor's position is a uint32, and no real catalogue comes near).
 */
export const MAX_POSITION = 40_000_000;
/** Distinct words an index holds at most: a Map holds 2^24 entries, and a search must never meet that. */
const MAX_WORDS = 8_000_000;
/**
 * What an index holds besides its pages, words and codes: its maps, arrays and code tables. On
 * the heap (after a forced GC) 10,000 empty indexes took about 2.3 KB each.
 */
const EMPTY_INDEX_BYTES = 2_400;

export class PartIndex {
  readonly #pages = new Map<number, StoredPage>();
  readonly #codes: CodeTables = {
    version: new Codes(),
    process: new Codes(),
    material: new Codes(),
    standard: new Codes(),
    criticality: new Codes(),
    category: new Codes(),
  };
  readonly #words = new WordIndex();
  readonly #forms = new WordForms();
  /** The ids stored, so that a part the listing repeats (pages that shift) is stored once. */
  readonly #ids = new Set<string>();
  /** Pages being read, so that concurrent readers of this index wait for one request. */
  readonly #reading = new Map<number, Promise<void>>();
  readonly #budget: Budget;
  /** Reference records resolved for the codes on these parts (./resolved-records.ts). */
  readonly records: ResolvedRecords;
  #pageBytes = 0;
  /** The last page of the listing, once a page said hasMore false. */
  #lastPage: number | undefined;
  /** The position past the last part, once a page said hasMore false. */
  #end: number | undefined;
  #total: number | undefined;
  /** The first page known to be past the end (an empty page), before the last page is known. */
  #pastEnd = Number.POSITIVE_INFINITY;
  #stop: { position: number; reason: StopReason } | undefined;
  #tooLarge = 0;

  constructor(budget: Budget = UNLIMITED) {
    this.#budget = budget;
    this.records = new ResolvedRecords(budget);
  }

  /** Parts in the listing, once its last page has been read. */
  get total(): number | undefined {
    if (this.#total === undefined && this.#end !== undefined && this.coveredFrom(0) >= this.#end)
      this.#total = this.partsBefore(this.#end);
    return this.#total;
  }

  /** Parts before a position (`scanned`): those stored, and PAGE_SIZE a page this index has not read. */
  partsBefore(position: number): number {
    const last = Math.floor(position / PAGE_SPAN) + 1;
    let parts = 0;
    for (let page = 1; page < last; page++) parts += this.#pages.get(page)?.ids.length ?? PAGE_SIZE;
    const offset = position - (last - 1) * PAGE_SPAN;
    return parts + Math.min(this.#pages.get(last)?.ids.length ?? offset, offset);
  }

  /** Parts held, over every page read. */
  get partCount(): number {
    let parts = 0;
    for (const page of this.#pages.values()) parts += page.ids.length;
    return parts;
  }

  get pageCount(): number {
    return this.#pages.size;
  }

  get bytes(): number {
    let codes = 0;
    for (const kind of Object.values(this.#codes)) codes += kind.bytes;
    const ids = this.#ids.size * MAP_ENTRY;
    const words = this.#words.bytes + this.#forms.bytes;
    return EMPTY_INDEX_BYTES + this.#pageBytes + words + codes + ids + this.records.bytes;
  }

  /** Parts of the listing left out because each alone was too large to receive. */
  get tooLarge(): number {
    return this.#tooLarge;
  }

  /** Whether the index knows anything worth keeping: pages, or where the listing ends or stops. */
  get learned(): boolean {
    return this.#pages.size > 0 || this.#end !== undefined || this.#stop !== undefined;
  }

  hasPage(page: number): boolean {
    return this.#pages.has(page);
  }

  /** The read of a page under way, for a concurrent reader to wait for; undefined when none is. */
  pageBeingRead(page: number): Promise<void> | undefined {
    return this.#reading.get(page);
  }

  /** Marks a page as being read until `reading` settles. */
  readingPage(page: number, reading: Promise<void>): void {
    this.#reading.set(page, reading);
    const done = () => {
      if (this.#reading.get(page) === reading) this.#reading.delete(page);
    };
    reading.then(done, done);
  }

  /** Whether `page` is past the end of the listing, or past where this index stops. */
  isPastEnd(page: number): boolean {
    const start = (page - 1) * PAGE_SPAN;
    if (start >= MAX_POSITION || (this.#stop !== undefined && start >= this.#stop.position)) return true;
    return page >= this.#pastEnd || (this.#lastPage !== undefined && page > this.#lastPage);
  }

  /** Whether the listing is known to end (or this index to stop) at or before `position`. */
  endsBy(position: number): boolean {
    if (this.stopsBy(position) !== undefined) return true;
    if (this.#end !== undefined) return position >= this.#end;
    return this.#pastEnd <= Math.floor(position / PAGE_SPAN) + 1;
  }

  /** Why this index stops short of the listing's end at or before `position`; undefined if it does not. */
  stopsBy(position: number): StopReason | undefined {
    if (this.#end !== undefined && this.#end <= (this.#stop?.position ?? MAX_POSITION)) return undefined;
    if (this.#stop !== undefined && position >= this.#stop.position) return this.#stop.reason;
    return position >= MAX_POSITION ? "endless" : undefined;
  }

  /** The codes of one kind seen on the parts read so far. */
  codesOf(kind: FilterKind | "version"): string[] {
    return this.#codes[kind].values.slice(1);
  }

  hasCode(kind: FilterKind, code: string): boolean {
    return this.#codes[kind].numberOf(code) !== undefined;
  }

  /** Part ids read so far, with their titles (for did-you-mean on a part id). */
  *parts(): Generator<{ id: string; title: string }> {
    for (const page of this.#pages.values()) {
      for (let j = 0; j < page.ids.length; j++) {
        yield { id: page.ids[j] as string, title: page.titles[j] as string };
      }
    }
  }

  /** The end of the run of read pages that starts at `from`: every position before it is read. */
  coveredFrom(from: number): number {
    if (this.#end !== undefined && from >= this.#end) return from;
    let page = Math.floor(from / PAGE_SPAN) + 1;
    while (this.#pages.has(page)) {
      if (page === this.#lastPage) return this.#end as number;
      page += 1;
    }
    return Math.max(from, (page - 1) * PAGE_SPAN);
  }

  /**
   * Stores a page as the API sent it, believing no more than it must: every item it sent (more or
   * fewer than PAGE_SIZE: a page of the API's own size) takes its own position, a part already
   * stored is not stored again, and the index stops at a page of more than PAGE_SPAN items, at an
   * empty page that says more follow, and at a page the memory budget has no room for.
   * `tooLarge` counts the page's parts the reader could not receive at all.
   */
  addPage(page: number, listed: readonly Part[], hasMore: boolean, tooLarge = 0): void {
    const start = (page - 1) * PAGE_SPAN;
    if (this.#pages.has(page) || this.isPastEnd(page)) return;
    if (listed.length > PAGE_SPAN) {
      this.#stopAt(start, "crowded");
      return;
    }
    const items = listed;
    if (items.length === 0 && hasMore && tooLarge === 0) {
      this.#stopAt(start, "hollow");
      return;
    }
    const parts = this.#newParts(items);
    const texts = parts.map(indexedWords);
    const estimate =
      storageEstimate(parts) + this.#words.cost(texts.map((text) => text.words)) + this.#forms.cost(texts);
    const newWords = texts.reduce((sum, text) => sum + wordCount(text), 0);
    if (this.#words.size + this.#forms.size + newWords > MAX_WORDS || !this.#budget.claim(estimate)) {
      this.#stopAt(start, "budget");
      return;
    }
    const before = this.bytes;
    if (!hasMore) {
      if (items.length > 0 || page === 1) {
        this.#lastPage ??= page;
        this.#end ??= start + parts.length;
      } else {
        // An empty page past the end says only that the end is earlier.
        this.#pastEnd = Math.min(this.#pastEnd, page);
      }
    }
    if (items.length > 0 || tooLarge > 0) this.#store(page, parts, texts);
    if (
      this.#end !== undefined &&
      this.#pages.size >= (this.#lastPage ?? 0) &&
      this.coveredFrom(0) >= this.#end
    ) {
      // Every page from the first to the last is read, so no part is added any more: the words are
      // sorted and packed once, for all the searches to come.
      this.#words.settle();
      this.#forms.settle();
    }
    this.#tooLarge += tooLarge;
    this.#budget.settle(this.bytes - before - estimate);
  }

  #stopAt(position: number, reason: StopReason): void {
    if (this.#stop === undefined || position < this.#stop.position) this.#stop = { position, reason };
  }

  /** The parts of a page not stored yet, each once. */
  #newParts(items: readonly Part[]): Part[] {
    const seen = new Set<string>();
    return items.filter((part) => {
      if (this.#ids.has(part.id) || seen.has(part.id)) return false;
      seen.add(part.id);
      return true;
    });
  }

  #store(page: number, parts: readonly Part[], texts: readonly PartWords[]): void {
    const n = parts.length;
    const lists = parts.map(codeLists);
    const stored: StoredPage = {
      ids: new Array<string>(n),
      titles: new Array<string>(n),
      serials: new Array<string>(n),
      singles: new Uint32Array(n * SINGLES),
      published: new Uint8Array(n),
      listStart: new Uint32Array(n * LISTS + 1),
      listed: new Uint32Array(lists.reduce((sum, [a, b, c]) => sum + a.length + b.length + c.length, 0)),
    };
    let bytes = OBJECT + 3 * (ARRAY_HEADER + n * SLOT) + 4 * TYPED_ARRAY;
    bytes += stored.singles.byteLength + stored.published.byteLength;
    bytes += stored.listStart.byteLength + stored.listed.byteLength;
    let listed = 0;
    parts.forEach((part, j) => {
      this.#ids.add(part.id);
      stored.ids[j] = part.id;
      stored.titles[j] = summaryTitle(part.title);
      stored.serials[j] = part.serialId;
      bytes += stringBytes(part.id) + stringBytes(stored.titles[j]) + stringBytes(part.serialId);
      const singles = j * SINGLES;
      if (part.versionName !== undefined)
        stored.singles[singles + VERSION] = this.#codes.version.intern(part.versionName);
      if (part.processId !== undefined)
        stored.singles[singles + PROCESS] = this.#codes.process.intern(part.processId);
      if (part.materialId !== undefined)
        stored.singles[singles + MATERIAL] = this.#codes.material.intern(part.materialId);
      stored.published[j] = part.published ? 1 : 0;
      (lists[j] as string[][]).forEach((codes, k) => {
        stored.listStart[j * LISTS + k] = listed;
        const kind = this.#codes[LIST_KINDS[k] as (typeof LIST_KINDS)[number]];
        for (const code of codes) stored.listed[listed++] = kind.intern(code);
      });
      this.#words.add((page - 1) * PAGE_SPAN + j, (texts[j] as PartWords).words);
      this.#forms.add((page - 1) * PAGE_SPAN + j, texts[j] as PartWords);
    });
    stored.listStart[n * LISTS] = listed;
    this.#pages.set(page, stored);
    this.#pageBytes += bytes + MAP_ENTRY;
  }

  /**
   * The parts in [from, to) that match, in listing order, at most `max` of them, and where the
   * examination stopped (after the last match when `max` was reached, else `to`). Every page of
   * [from, to) must have been read.
   */
  matches(
    query: CompiledQuery,
    from: number,
    to: number,
    max: number,
  ): { found: Match[]; scannedTo: number } {
    const found: Match[] = [];
    if (to <= from || max <= 0) return { found, scannedTo: Math.max(from, to) };
    const filter = compileFilters(this.#codes, query.filters);
    if (filter === undefined) return { found, scannedTo: to };
    const readings = query.readings.map((reading) =>
      compileReading(this.#words, this.#codes, reading, from, to),
    );
    // Parts that some reading may match: those with every word its referenced records cannot
    // match in their own text. Most parts fail this at the cost of reading one byte.
    const gates = readings.map((reading) => reading.gate);
    const gate = gates.length === 0 || gates.includes(undefined) ? undefined : unionOf(gates as Uint8Array[]);
    for (let page = Math.floor(from / PAGE_SPAN) + 1; (page - 1) * PAGE_SPAN < to; page++) {
      const stored = this.#pages.get(page);
      if (stored === undefined) throw new Error(`page ${page} has not been read`);
      const base = (page - 1) * PAGE_SPAN;
      const end = Math.min(stored.ids.length, to - base);
      for (let j = Math.max(0, from - base); j < end; j++) {
        const position = base + j;
        if (gate !== undefined && gate[position - from] === 0) continue;
        if (!filter(stored, j)) continue;
        let match: Match | undefined;
        if (readings.length === 0) match = { position, reading: 0, viaReference: 0 };
        for (let r = 0; r < readings.length && match === undefined; r++) {
          const viaReference = (readings[r] as CompiledReading).test(stored, j, position - from);
          if (viaReference >= 0) match = { position, reading: r, viaReference };
        }
        if (match === undefined) continue;
        found.push(match);
        if (found.length === max) return { found, scannedTo: position + 1 };
      }
    }
    return { found, scannedTo: to };
  }

  /** How exactly, and through what, each match met the query (./ranking.ts). */
  ranks(query: CompiledQuery, found: readonly Match[]): MatchRank[] {
    const tests = new Map<QueryWord, PartTest | undefined>();
    return rankMatches(this.#words, this.#forms, query, found, (position, word) => {
      if (!tests.has(word)) tests.set(word, recordsBesideCategories(this.#codes, word));
      const { stored, j } = this.#at(position);
      return tests.get(word)?.(stored, j) ?? false;
    });
  }

  /** Whether a word of some part's own text starts with `prefix`. */
  hasWord(prefix: string): boolean {
    return this.#words.has(prefix);
  }

  /** Words of the parts' own text near a word (a typo), closest first. */
  nearWords(word: string, limit: number, max: number): string[] {
    return this.#words.near(word, limit, max);
  }

  /** The stored page and offset of a read position. */
  #at(position: number): { stored: StoredPage; j: number } {
    const stored = this.#pages.get(Math.floor(position / PAGE_SPAN) + 1);
    const j = position % PAGE_SPAN;
    if (stored === undefined || j >= stored.ids.length)
      throw new Error(`position ${position} has not been read`);
    return { stored, j };
  }

  /** The summary of the part at a position that has been read. */
  summary(position: number): PartSummary {
    const { stored, j } = this.#at(position);
    return summaryOf(stored, j, this.#codes);
  }

  /** The codes a part at a read position names, by kind. */
  referencesOf(position: number): Record<FilterKind, string[]> {
    const { stored, j } = this.#at(position);
    return referencesOf(stored, j, this.#codes);
  }
}
