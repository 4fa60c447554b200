// Search on the model's behalf: the API has no search and no lists of processes, materials,
// criticalities or categories, so this reads list_parts itself (./page-reader.ts: several pages
// at once, a bounded number per call, within the call's deadline) and keeps what it read in a
// per-token index (./part-indexes.ts).
//
// A result is in listing order, so a cursor is one position: any process continues from it.
import type { Category, Criticality, Material, PART_VIEWS, Process, Standard } from "../api/schemas";
import { type CallOptions, type PartsApiClient, PartsApiError } from "../client";
import { REFERENCE_KINDS, type ReferenceData, type ReferenceKind } from "../data/reference";
import { SeenRecords } from "../data/seen";
import { decodeCursor, encodeCursor, searchDigest } from "./cursor";
import { SearchRefusal } from "./errors";
import {
  type Candidate,
  didYouMean,
  didYouMeanId,
  editDistance,
  rankRecords,
  type Searchable,
  sameCode,
  stemsOf,
  typosAllowed,
  wordMatch,
} from "./match";
import { type Progress, readPages, stopNotice, tooLargeNotice } from "./page-reader";
import {
  type CompiledQuery,
  FILTER_KINDS,
  type FilterKind,
  type Match,
  type PartIndex,
  type PartSummary,
  type QueryWord,
} from "./part-index";
import { type Held, PartIndexes, VIEW_KEYS, type ViewKey } from "./part-indexes";
import { resolveCodes } from "./records";
import { compact, readings, stems } from "./text";
import { materialFamilies, processFamilies, STOP_WORDS } from "./vocabulary";
import { MAX_WORD_CHARS } from "./word-index";

type PartView = (typeof PART_VIEWS)[number];

export interface PartSearchOptions {
  /** How long an index is kept after it was started (the reference cache's TTL); 0 keeps none. */
  ttlMs: number;
  /** Memory for the indexes of all tokens together, in bytes. */
  maxBytes: number;
  /** Most list_parts pages (of 50 parts) that one call reads. */
  pagesPerCall: number;
  /** Pages requested at once. */
  concurrency: number;
  /** What the token has been shown (the server loop records it); part and code candidates come from it too. */
  seen: SeenRecords;
}

const MiB = 1024 * 1024;
/**
 * Pages a did-you-mean may read when nothing has been read for the token yet: a failed lookup
 * should not cost a whole scan, and the first 1,000 parts name most codes in use.
 */
const SUGGESTION_PAGES = 20;

/**
 * Defaults, measured on the embedded API (test/search/measure.ts). An index holds about 46 MiB
 * per 100,000 parts, so 128 MiB keeps one token's 100,000-part catalogue in all three views
 * (about 160,000 parts) with room for other tokens. 500 pages (25,000 parts) a call read the
 * 81,000 parts the demo token sees in 4 calls of 2 to 3 s (1,627 requests), well inside the 30 s
 * deadline, and the sample data (4 pages) in one. 8 pages at once: locally 4 were as fast (about
 * 450 pages/s, the CPU is the limit), but against a remote API each page waits on the network.
 */
export const SEARCH_DEFAULTS = { maxBytes: 128 * MiB, pagesPerCall: 500, concurrency: 8 } as const;

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 50;
/** Most records search_reference returns; more make `complete` false. */
const MAX_REFERENCE_ITEMS = 100;
/** Most distinct words of a search text (each is a pass over the index). */
const MAX_TEXT_WORDS = 12;
/** Most codes one filter takes. */
export const MAX_FILTER_CODES = 20;
/** Levels of parent categories looked up above the categories found on parts. */
const MAX_CATEGORY_DEPTH = 8;
/** Time a search keeps for looking up the records its parts name; with less, it uses the cached ones. */
const LOOKUP_MARGIN_MS = 1_000;
/** Near words a typo is read as, at most. */
const MAX_TYPO_READINGS = 3;

type FilterArgument = string | readonly string[];

export interface PartSearchArgs {
  text?: string;
  materialId?: FilterArgument;
  processId?: FilterArgument;
  standardId?: FilterArgument;
  criticalityId?: FilterArgument;
  categoryId?: FilterArgument;
  view?: PartView;
  limit?: number;
  cursor?: string;
}

/** A part found: its summary, and when a referenced record matched words its own text lacks, which. */
export type FoundPart = PartSummary & { matched?: string };

export interface PartSearchResult {
  items: FoundPart[];
  scanned: number;
  complete: boolean;
  nextCursor?: string;
  /** How the text was read (typos), or why nothing matched. */
  hint?: string;
}

interface ReferenceRecords {
  process: Process;
  material: Material;
  standard: Standard;
  criticality: Criticality;
  category: Category;
}
export type SuggestKind = ReferenceKind | "part" | "rfq" | "factory";
type Filters = Partial<Record<FilterKind, readonly string[]>>;
type Known = { [K in ReferenceKind]: ReferenceRecords[K][] };
const NO_RECORDS: Known = { process: [], material: [], standard: [], criticality: [], category: [] };

/** What of each kind of record a fragment is compared with (search_reference, did-you-mean, reads by code). */
const SEARCHABLE: { [K in ReferenceKind]: (record: ReferenceRecords[K]) => Searchable } = {
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

type KindEntry = { kind: ReferenceKind; record: ReferenceRecords[ReferenceKind] };

/**
 * One entry per record, kept as long as the record (the reference cache's own object): rankRecords
 * keeps each record's folded words by the object and by the `fields` function, so both must be
 * the same from call to call for a record to be folded once.
 */
const kindEntries = new WeakMap<object, KindEntry>();

function kindEntry(kind: ReferenceKind, record: object): KindEntry {
  let entry = kindEntries.get(record);
  if (entry === undefined) {
    entry = { kind, record: record as ReferenceRecords[ReferenceKind] };
    kindEntries.set(record, entry);
  }
  return entry;
}

const kindEntryFields = ({ kind, record }: KindEntry): Searchable =>
  (SEARCHABLE[kind] as (record: unknown) => Searchable)(record);

/**
 * What of a referenced record a part's search text may match: as above, but not ids made only to
 * be unique (`crit-…`, `cat-…`: every record's id would match "crit" or "cat").
 */
const PART_TEXT: { [K in Exclude<ReferenceKind, "category">]: (record: ReferenceRecords[K]) => Searchable } =
  {
    process: SEARCHABLE.process,
    material: SEARCHABLE.material,
    standard: SEARCHABLE.standard,
    criticality: (r) => ({ keys: [r.code], names: [r.name] }),
  };

/** The order in which an item's `matched` names the records that matched. */
const LABEL_ORDER = ["material", "process", "category", "criticality", "standard"] as const;

const FILTER_ARGUMENT: Record<FilterKind, keyof PartSearchArgs> = {
  process: "processId",
  material: "materialId",
  standard: "standardId",
  criticality: "criticalityId",
  category: "categoryId",
};

/** Unknown codes of one call that get a did-you-mean, at most (the others are listed without). */
const MAX_SUGGESTED_PER_CALL = 30;
/** Part ids a did-you-mean compares an unknown id with, at most. */
const MAX_PART_CANDIDATES = 20_000;

export class PartSearch {
  readonly #api: PartsApiClient;
  readonly #reference: ReferenceData;
  readonly #seen: SeenRecords;
  readonly #defaultToken: string;
  readonly #options: Omit<PartSearchOptions, "seen">;
  readonly #indexes: PartIndexes;
  /** Part-id candidates per index, made again when it has grown: each candidate is folded once. */
  readonly #partCandidates = new WeakMap<PartIndex, { pages: number; candidates: PartCandidate[] }>();

  constructor(
    api: PartsApiClient,
    reference: ReferenceData,
    defaultToken: string,
    options: Pick<PartSearchOptions, "ttlMs"> & Partial<PartSearchOptions>,
  ) {
    this.#api = api;
    this.#reference = reference;
    this.#defaultToken = defaultToken;
    this.#seen = options.seen ?? new SeenRecords(defaultToken);
    const { seen: _, ...settings } = { ...SEARCH_DEFAULTS, ...options };
    this.#options = {
      ttlMs: Math.max(0, settings.ttlMs),
      maxBytes: Math.max(1, Math.floor(settings.maxBytes)),
      pagesPerCall: Math.max(1, Math.floor(settings.pagesPerCall)),
      concurrency: Math.max(1, Math.floor(settings.concurrency)),
    };
    this.#indexes = new PartIndexes(this.#options.ttlMs, this.#options.maxBytes);
  }

  /** Bytes held by the indexes of all tokens. */
  get bytes(): number {
    return this.#indexes.bytes;
  }

  /** Parts held by the indexes of all tokens. */
  get parts(): number {
    return this.#indexes.parts;
  }

  /** Drops what this token's indexes hold (after it created a part, say). */
  forget(call: CallOptions): void {
    this.#indexes.forget(this.#tokenHash(call));
  }

  async searchParts(args: PartSearchArgs, call: CallOptions, progress?: Progress): Promise<PartSearchResult> {
    const limit = args.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new SearchRefusal(`The limit must be a whole number from 1 to ${MAX_LIMIT}.`);
    }
    const filters = filtersOf(args);
    const readingStems = textReadings(args.text);
    const tokenHash = this.#tokenHash(call);
    const view: ViewKey = args.view ?? "ALL";
    const digest = searchDigest(tokenHash, { view, filters, readings: readingStems });
    const start = args.cursor === undefined ? 0 : decodeCursor(args.cursor, digest);
    const held = this.#indexes.held(tokenHash, view);
    const { index } = held;
    await this.#refuseUnknownCodes(filters, index, call);

    // While pages are read, the parts' own words and the codes as given are enough to tell when
    // this call has found more than a page: whatever they match, the whole query matches too.
    const early = ownWordsOnly(readingStems, filters);
    let found = 0;
    let evaluatedTo = start;
    const enough = (to: number) => {
      if (found <= limit && to > evaluatedTo) {
        const { found: more, scannedTo } = index.matches(early, evaluatedTo, to, limit + 1 - found);
        found += more.length;
        evaluatedTo = scannedTo;
      }
      return found > limit;
    };
    const coveredNow = index.coveredFrom(start);
    if (!index.endsBy(coveredNow) && !enough(coveredNow)) {
      await this.#read(held, tokenHash, view, evaluatedTo, call, progress, enough);
    }

    // Referenced records matter only to words and to a category's descendants.
    const known = readingStems.length > 0 || filters.category ? await this.#knownRecords(call) : NO_RECORDS;
    const notes: string[] = [];
    const query = compileQuery(readingStems, filters, index, known, notes);
    const covered = index.coveredFrom(start);
    const { found: matches, scannedTo } = index.matches(query, start, covered, limit + 1);
    const items = matches.slice(0, limit).map((match) => this.#item(match, query, index, known));
    // An index that stopped short of the listing's end (memory budget, an empty page that says
    // more follow, an endless listing) gives no cursor: the hint says why and what was searched.
    const stopped = matches.length <= limit ? index.stopsBy(scannedTo) : undefined;
    const complete = matches.length <= limit && index.endsBy(scannedTo) && stopped === undefined;
    const next = matches.length > limit ? (matches[limit] as Match).position : scannedTo;
    if (!complete && stopped === undefined && next === start && items.length === 0) {
      throw new SearchRefusal("The Parts API could not be read in time: try again shortly.");
    }
    if (stopped) notes.push(stopNotice(stopped, scannedTo));
    if (index.tooLarge > 0) notes.push(tooLargeNotice(index.tooLarge));
    if (items.length === 0 && stopped === undefined) {
      notes.push(whyNothing(args, query, filters, index, start, next, complete, known));
    }
    const result =
      complete || stopped
        ? { items, scanned: complete ? (index.total ?? scannedTo) : scannedTo, complete }
        : { items, scanned: next, complete, nextCursor: encodeCursor(next, digest) };
    return notes.length > 0 ? { ...result, hint: notes.join(" ") } : result;
  }

  /** A match's summary, with `matched` when a referenced record matched words the part's own text lacks. */
  #item(match: Match, query: CompiledQuery, index: PartIndex, known: Known): FoundPart {
    const summary = index.summary(match.position);
    if (match.viaReference === 0) return summary;
    const references = index.referencesOf(match.position);
    const reading = query.readings[match.reading] ?? [];
    const labels = new Set<string>();
    reading.forEach((word, w) => {
      if ((match.viaReference & (1 << w)) === 0) return;
      const label = referenceLabel(word, references, known);
      if (label !== undefined) labels.add(label);
    });
    return labels.size > 0 ? { ...summary, matched: [...labels].join("; ") } : summary;
  }

  /**
   * Records that match `text`, best first (all of them without text), of one kind or of every
   * kind (each item then says its `kind`). Standards come from list_standards; the other kinds,
   * which the API cannot list, are the codes on the parts read so far (read first when nothing
   * is), resolved through the reference cache, and every parent of their categories.
   */
  async searchReference(
    kind: ReferenceKind | undefined,
    text: string | undefined,
    call: CallOptions,
    progress?: Progress,
  ): Promise<{ items: Record<string, unknown>[]; complete: boolean }> {
    const kinds = kind === undefined ? REFERENCE_KINDS : [kind];
    const found = await Promise.all(kinds.map((each) => this.#records(each, call, progress)));
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

  /**
   * A hint for a code or id the API does not know, naming the closest known records:
   * `did you mean pa12 (Polyamide 12 (PA12))?`; undefined when nothing is close. Never fails.
   */
  async suggest(kind: SuggestKind, unknown: string, call: CallOptions): Promise<string | undefined> {
    try {
      if (kind === "part") return didYouMeanId(unknown, this.#partIds(call));
      return didYouMean(unknown, await this.#candidates(kind, call));
    } catch {
      return undefined;
    }
  }

  /**
   * Did-you-mean hints for the unknown codes of one call (a draft's): each kind's candidates are
   * made and folded once for all of them, and at most MAX_SUGGESTED_PER_CALL get a hint, so the
   * work is bounded whatever the draft names.
   */
  async suggestMany(
    entries: readonly { kind: SuggestKind; id: string }[],
    call: CallOptions,
  ): Promise<(string | undefined)[]> {
    const candidates = new Map<SuggestKind, Promise<Candidate[]>>();
    const of = (kind: SuggestKind) => {
      let list = candidates.get(kind);
      if (list === undefined) {
        list = kind === "part" ? Promise.resolve(this.#partIds(call)) : this.#candidates(kind, call);
        candidates.set(kind, list);
      }
      return list;
    };
    return Promise.all(
      entries.map(async ({ kind, id }, i) => {
        if (i >= MAX_SUGGESTED_PER_CALL) return undefined;
        try {
          const list = await of(kind);
          return kind === "part" ? didYouMeanId(id, list as PartCandidate[]) : didYouMean(id, list);
        } catch {
          return undefined;
        }
      }),
    );
  }

  /**
   * The code an unknown one stands for when exactly one known record has it once case, spacing,
   * punctuation, a governing body before it and an edition year after it are folded ("PA12" is
   * pa12, "SAE AMS4928" is AMS 4928); undefined when none or several do. Never fails.
   */
  async readAs(kind: ReferenceKind, unknown: string, call: CallOptions): Promise<string | undefined> {
    try {
      const same = sameCode(await this.#candidates(kind, call), unknown);
      return same.length === 1 ? same[0] : undefined;
    } catch {
      return undefined;
    }
  }

  async #candidates(kind: Exclude<SuggestKind, "part">, call: CallOptions): Promise<Candidate[]> {
    // RFQs and factories cannot be listed: the ids this token has been shown are all there is.
    if (kind === "rfq" || kind === "factory") {
      return this.#seen.known(kind, call).map((id) => ({ keys: [id], names: [] }));
    }
    const { records } = await this.#records(kind, call, undefined, SUGGESTION_PAGES);
    const fields = SEARCHABLE[kind] as (record: ReferenceRecords[ReferenceKind]) => Searchable;
    return records.map((record) => ({ ...fields(record), label: record.name }));
  }

  /** Part ids this token was shown or has read, with their titles, at most MAX_PART_CANDIDATES. */
  #partIds(call: CallOptions): PartCandidate[] {
    const tokenHash = this.#tokenHash(call);
    const candidates = new Map<string, PartCandidate>();
    for (const id of this.#seen.known("part", call)) candidates.set(id, partCandidate(id));
    for (const view of VIEW_KEYS) {
      const index = this.#indexes.peek(tokenHash, view)?.index;
      if (index === undefined) continue;
      // Kept per index until it grows, so that each id is made compact once, not once per miss.
      let kept = this.#partCandidates.get(index);
      if (kept?.pages !== index.pageCount) {
        kept = { pages: index.pageCount, candidates: [] };
        for (const part of index.parts()) {
          if (kept.candidates.length >= MAX_PART_CANDIDATES) break;
          kept.candidates.push(partCandidate(part.id, part.title));
        }
        this.#partCandidates.set(index, kept);
      }
      for (const candidate of kept.candidates) {
        if (candidates.size >= MAX_PART_CANDIDATES) break;
        if (!candidates.has(candidate.keys[0] as string))
          candidates.set(candidate.keys[0] as string, candidate);
      }
    }
    return [...candidates.values()];
  }

  async #records<K extends ReferenceKind>(
    kind: K,
    call: CallOptions,
    progress?: Progress,
    pages = this.#options.pagesPerCall,
  ): Promise<{ records: ReferenceRecords[K][]; complete: boolean }> {
    if (kind === "standard") {
      return {
        records: (await this.#reference.standards({}, call)) as ReferenceRecords[K][],
        complete: true,
      };
    }
    const tokenHash = this.#tokenHash(call);
    const all = this.#indexes.held(tokenHash, "ALL");
    if (all.index.pageCount === 0 && all.index.total === undefined) {
      await this.#read(all, tokenHash, "ALL", 0, call, progress, () => false, pages);
    }
    const total = all.index.total;
    const complete = total !== undefined && all.index.coveredFrom(0) >= total;
    const resolved = await this.#resolve(kind, this.#knownCodes(kind, call), call);
    return { records: resolved.records as ReferenceRecords[K][], complete: complete && resolved.complete };
  }

  /**
   * Every record this token's parts name, and every parent of their categories, for matching a
   * search's words. A kind the API fails to give is matched with what the cache already has.
   */
  async #knownRecords(call: CallOptions): Promise<Known> {
    // Pages read until the deadline was near leave no time to look records up: what the cache has.
    const cachedOnly = (call.deadline?.remaining() ?? Number.POSITIVE_INFINITY) < LOOKUP_MARGIN_MS;
    const kinds = await Promise.all(
      REFERENCE_KINDS.map(async (kind) => {
        if (cachedOnly) return this.#cached(kind, call);
        try {
          return kind === "standard"
            ? await this.#reference.standards({}, call)
            : (await this.#resolve(kind, this.#knownCodes(kind, call), call)).records;
        } catch (error) {
          if (error instanceof PartsApiError && error.kind === "cancelled") throw error;
          return this.#cached(kind, call);
        }
      }),
    );
    return Object.fromEntries(REFERENCE_KINDS.map((kind, k) => [kind, kinds[k]])) as Known;
  }

  /** The records of a kind this token's parts name that the reference cache already has: no request. */
  async #cached(kind: ReferenceKind, call: CallOptions): Promise<unknown[]> {
    if (kind === "standard") return this.#reference.cachedStandards(call);
    const codes = kind === "category" ? await this.knownCodes(kind, call) : this.#knownCodes(kind, call);
    const found = await Promise.all(codes.map((code) => this.#reference.cachedRecord(kind, code, call)));
    return found.filter((record) => record !== undefined);
  }

  /**
   * The codes of a kind this token knows without a request (for completion): on the parts read
   * so far and shown, and for categories every parent the reference cache already holds.
   */
  async knownCodes(kind: Exclude<ReferenceKind, "standard">, call: CallOptions): Promise<string[]> {
    const known = new Set(this.#knownCodes(kind, call));
    let frontier = [...known];
    for (let depth = 0; kind === "category" && frontier.length > 0 && depth < MAX_CATEGORY_DEPTH; depth++) {
      const cached = await Promise.all(
        frontier.map((id) => this.#reference.cachedRecord("category", id, call)),
      );
      frontier = cached
        .map((category) => (category as Category | undefined)?.parentId)
        .filter((id): id is string => id !== undefined && !known.has(id));
      for (const id of frontier) known.add(id);
    }
    return [...known];
  }

  /** The codes of a kind this token has met: on the parts read so far, in any view, and shown. */
  #knownCodes(kind: Exclude<ReferenceKind, "standard">, call: CallOptions): string[] {
    const tokenHash = this.#tokenHash(call);
    const codes = new Set(this.#seen.known(kind, call));
    for (const view of VIEW_KEYS) {
      for (const code of this.#indexes.peek(tokenHash, view)?.index.codesOf(kind as FilterKind) ?? []) {
        codes.add(code);
      }
    }
    return [...codes];
  }

  /**
   * Full records for codes, resolved through the reference cache and kept with the token's index
   * (./records.ts: a bounded number of new codes a call, so `complete` may be false); codes the
   * API does not know are left out. Categories come with every category above them.
   */
  async #resolve(
    kind: Exclude<ReferenceKind, "standard">,
    codes: readonly string[],
    call: CallOptions,
  ): Promise<{ records: unknown[]; complete: boolean }> {
    if (codes.length === 0) return { records: [], complete: true };
    const tokenHash = this.#tokenHash(call);
    const all = this.#indexes.held(tokenHash, "ALL");
    const resolve = (wanted: readonly string[]) =>
      this.#indexes.reading(tokenHash, "ALL", all, () =>
        resolveCodes(this.#reference, all.index, kind, wanted, call),
      );
    const resolved = await resolve(codes);
    if (kind !== "category") return resolved;
    const found = new Map((resolved.records as Category[]).map((category) => [category.id, category]));
    let complete = resolved.complete;
    for (let depth = 0; depth < MAX_CATEGORY_DEPTH; depth++) {
      const parents = [...found.values()]
        .map((category) => category.parentId)
        .filter((id): id is string => id !== undefined && !found.has(id));
      if (parents.length === 0) break;
      const above = await resolve([...new Set(parents)]);
      complete &&= above.complete;
      if (above.records.length === 0) break;
      for (const category of above.records as Category[]) found.set(category.id, category);
    }
    return { records: [...found.values()], complete };
  }

  /**
   * A filter naming a code that no part read so far carries may be a code the API does not know
   * (a name, or a wrong case): one lookup, through the reference cache, tells; if it is unknown
   * the search is refused with the closest codes, instead of reading the whole catalogue for nothing.
   */
  async #refuseUnknownCodes(filters: Filters, index: PartIndex, call: CallOptions): Promise<void> {
    for (const kind of FILTER_KINDS) {
      for (const code of filters[kind] ?? []) {
        if (index.hasCode(kind, code) || (await this.#exists(kind, code, call))) continue;
        const hint = await this.suggest(kind, code, call);
        throw new SearchRefusal(
          `${FILTER_ARGUMENT[kind]} ${JSON.stringify(code)} is not a ${kind} code the Parts API knows${hint ? `; ${hint}` : "."} Find codes with search_reference.`,
        );
      }
    }
  }

  /** Whether the API knows a code; true when it cannot say (the search then answers for itself). */
  async #exists(kind: FilterKind, code: string, call: CallOptions): Promise<boolean> {
    try {
      if (kind === "category")
        return (await this.#reference.batch("category", [code], call)).items.length > 0;
      if (kind === "process") await this.#reference.process(code, call);
      else if (kind === "material") await this.#reference.material(code, call);
      else if (kind === "standard") await this.#reference.standard(code, call);
      else await this.#reference.criticality(code, call);
      return true;
    } catch (error) {
      if (error instanceof PartsApiError && error.kind === "cancelled") throw error;
      return (error as { status?: number }).status !== 404;
    }
  }

  /** Reads pages into a held index (./page-reader.ts), putting it back in the cache as it grows. */
  async #read(
    held: Held,
    tokenHash: string,
    view: ViewKey,
    from: number,
    call: CallOptions,
    progress: Progress | undefined,
    enough: (coveredTo: number) => boolean,
    pagesPerCall = this.#options.pagesPerCall,
  ): Promise<void> {
    await this.#indexes.reading(tokenHash, view, held, () =>
      readPages(this.#api, call, {
        index: held.index,
        view,
        from,
        pagesPerCall,
        concurrency: this.#options.concurrency,
        progress,
        enough,
      }),
    );
  }

  #tokenHash(call: CallOptions): string {
    return this.#indexes.tokenHash(call.token ?? this.#defaultToken);
  }
}

type PartCandidate = Candidate & { compactKey: string };

const partCandidate = (id: string, title?: string): PartCandidate => ({
  keys: [id],
  names: [],
  compactKey: compact(id),
  ...(title !== undefined && { label: title }),
});

/** The filters as lists of codes, each list without repeats and in order, for the digest. */
function filtersOf(args: PartSearchArgs): Filters {
  const filters: Filters = {};
  for (const kind of FILTER_KINDS) {
    const given = args[FILTER_ARGUMENT[kind]] as FilterArgument | undefined;
    if (given === undefined) continue;
    const codes = [...new Set(typeof given === "string" ? [given] : given)].sort();
    if (codes.length > MAX_FILTER_CODES) {
      throw new SearchRefusal(`${FILTER_ARGUMENT[kind]} takes at most ${MAX_FILTER_CODES} codes.`);
    }
    if (codes.length > 0) filters[kind] = codes;
  }
  return filters;
}

/**
 * The text's readings (as written, then without an edition year) as lists of stemmed words, with
 * filler words ("parts made of") left out when others remain. No text: no readings.
 */
function textReadings(text: string | undefined): string[][] {
  const trimmed = text?.trim() ?? "";
  if (trimmed === "") return [];
  const lists = readings(trimmed).map((reading) => {
    // Indexed words are kept to MAX_WORD_CHARS; a longer word of the text is cut the same way.
    const all = [...new Set(stems(reading).map((word) => word.slice(0, MAX_WORD_CHARS)))];
    const meaningful = all.filter((word) => !STOP_WORDS.has(word));
    return meaningful.length > 0 ? meaningful : all;
  });
  if (lists.some((list) => list.length > MAX_TEXT_WORDS)) {
    throw new SearchRefusal(
      `The text has more than ${MAX_TEXT_WORDS} words: send the few that a part's title, material, process or category would have.`,
    );
  }
  return lists.filter((list) => list.length > 0);
}

/** The query of the words as written against the parts' own text only, and the filters as given. */
function ownWordsOnly(readingStems: string[][], filters: Filters): CompiledQuery {
  return {
    filters,
    readings: readingStems.map((list) => list.map((word) => ({ prefixes: [word], codes: {} }))),
  };
}

/**
 * The whole query: each word matches the part's own words or a referenced record (its names,
 * family words, a category's parents); a word that matches nothing is read as the nearest known
 * words when it may be a typo (said in `notes`); a category filter takes in its descendants.
 */
function compileQuery(
  readingStems: string[][],
  filters: Filters,
  index: PartIndex,
  known: Known,
  notes: string[],
): CompiledQuery {
  const categories = categoryEntriesOf(known.category);
  const expanded: Filters = { ...filters };
  if (filters.category) expanded.category = withDescendants(filters.category, known.category);
  const matching = (word: string): QueryWord["codes"] => {
    const codes: QueryWord["codes"] = {};
    for (const kind of REFERENCE_KINDS) {
      const hits =
        kind === "category"
          ? categories
              .filter((entry) => wordMatch(entry, categoryEntryFields, word) !== undefined)
              .map((entry) => entry.record.id)
          : (known[kind] as ReferenceRecords[ReferenceKind][])
              .filter(
                (record) =>
                  wordMatch(record, PART_TEXT[kind] as (r: unknown) => Searchable, word) !== undefined,
              )
              .map((record) => ("code" in record ? record.code : record.id));
      if (kind === "criticality" || kind === "category") {
        const ids = (known[kind] as { id: string; code?: string }[])
          .filter((record) => hits.includes(record.code ?? record.id))
          .map((record) => record.id);
        if (ids.length > 0) codes[kind] = ids;
      } else if (hits.length > 0) codes[kind] = hits;
    }
    return codes;
  };
  const said = new Set<string>();
  const compileWord = (word: string): QueryWord => {
    const codes = matching(word);
    if (index.hasWord(word) || Object.keys(codes).length > 0 || typosAllowed(word) === 0) {
      return { prefixes: [word], codes };
    }
    const near = nearWords(word, index, known);
    if (near.length === 0) return { prefixes: [word], codes };
    if (!said.has(word))
      notes.push(`"${word}" matched nothing as written and was read as ${near.join(" or ")}.`);
    said.add(word);
    const merged: QueryWord["codes"] = {};
    for (const each of near) {
      for (const [kind, list] of Object.entries(matching(each)) as [FilterKind, string[]][]) {
        merged[kind] = [...new Set([...(merged[kind] ?? []), ...list])];
      }
    }
    return { prefixes: near, codes: merged };
  };
  return { filters: expanded, readings: readingStems.map((list) => list.map(compileWord)) };
}

/** Words of the parts' text and of the known records near a word with a typo, closest first. */
function nearWords(word: string, index: PartIndex, known: Known, limit = typosAllowed(word)): string[] {
  const near = new Map<string, number>();
  for (const each of index.nearWords(word, limit, MAX_TYPO_READINGS))
    near.set(each, editDistance(word, each, limit));
  for (const kind of REFERENCE_KINDS) {
    const fields = (kind === "category" ? SEARCHABLE.category : PART_TEXT[kind]) as (
      record: unknown,
    ) => Searchable;
    for (const record of known[kind]) {
      for (const term of stemsOf(record, fields)) {
        if (near.has(term) || Math.abs(term.length - word.length) > limit || /\d/.test(term)) continue;
        const distance = editDistance(word, term, limit);
        if (distance <= limit) near.set(term, distance);
      }
    }
  }
  return [...near]
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_TYPO_READINGS)
    .map(([each]) => each);
}

/** A category with its name and the names of every category above it, for a part's text. */
interface CategoryEntry {
  record: Category;
  names: string[];
}

/**
 * One entry per category while the names above it stay the same: rankRecords and wordMatch keep
 * folded words by object and by `fields` function, so a category is folded once, not on every
 * search (a parent learnt later makes a new entry).
 */
const categoryEntries = new WeakMap<Category, CategoryEntry>();

function categoryEntriesOf(categories: readonly Category[]): CategoryEntry[] {
  const byId = new Map(categories.map((category) => [category.id, category]));
  return categories.map((category) => {
    const names = ancestry(category, byId).map((each) => each.name);
    let entry = categoryEntries.get(category);
    if (
      entry === undefined ||
      entry.names.length !== names.length ||
      entry.names.some((name, i) => name !== names[i])
    ) {
      entry = { record: category, names };
      categoryEntries.set(category, entry);
    }
    return entry;
  });
}

const categoryEntryFields = (entry: CategoryEntry): Searchable => ({ keys: [], names: entry.names });

/** A category's own name, without those above it. */
const categoryOwnName = (category: Category): Searchable => ({ keys: [], names: [category.name] });

/** A category and every one above it, nearest first (a loop in the data ends the walk). */
function ancestry(category: Category, byId: ReadonlyMap<string, Category>): Category[] {
  const chain = [category];
  for (let parent = byId.get(category.parentId ?? ""); parent && !chain.includes(parent); ) {
    chain.push(parent);
    parent = byId.get(parent.parentId ?? "");
  }
  return chain.slice(0, MAX_CATEGORY_DEPTH + 1);
}

/** Category ids with every known category below them. */
function withDescendants(ids: readonly string[], categories: readonly Category[]): string[] {
  const byId = new Map(categories.map((category) => [category.id, category]));
  const wanted = new Set(ids);
  const below = categories.filter((category) => ancestry(category, byId).some((each) => wanted.has(each.id)));
  return [...new Set([...ids, ...below.map((category) => category.id)])];
}

/** `material Ti-6Al-4V (Grade 5) (titanium)`: the record of a part through which a word matched. */
function referenceLabel(
  word: QueryWord,
  references: Record<FilterKind, string[]>,
  known: Known,
): string | undefined {
  for (const kind of LABEL_ORDER) {
    const code = references[kind].find((each) => word.codes[kind]?.includes(each));
    if (code === undefined) continue;
    const record = (known[kind] as { code?: string; id?: string; name: string }[]).find(
      (each) => (kind === "criticality" || kind === "category" ? each.id : each.code) === code,
    );
    if (record === undefined) return `${kind} ${code}`;
    if (kind === "category") {
      const byId = new Map(known.category.map((category) => [category.id, category]));
      const chain = ancestry(record as Category, byId);
      const through = chain.find((each) =>
        word.prefixes.some((prefix) => wordMatch(each, categoryOwnName, prefix)),
      );
      return through === undefined || through === record
        ? `category ${record.name}`
        : `category ${record.name} (in ${through.name})`;
    }
    const fields = (PART_TEXT as Record<string, (record: unknown) => Searchable>)[kind] as (
      r: unknown,
    ) => Searchable;
    const family = word.prefixes.map((prefix) => wordMatch(record, fields, prefix)?.family).find(Boolean);
    return family ? `${kind} ${record.name} (${family})` : `${kind} ${record.name}`;
  }
  return undefined;
}

/**
 * Why a search found nothing, so that an empty answer is never taken for "there are none": the
 * words that match no part nor record (with the closest known words), the filters no part has,
 * or, when each matches parts on its own, that no part matches all together.
 */
function whyNothing(
  args: PartSearchArgs,
  query: CompiledQuery,
  filters: Filters,
  index: PartIndex,
  from: number,
  to: number,
  complete: boolean,
  known: Known,
): string {
  if (complete && from > 0) return "No further part matches: the search is complete.";
  const scope = complete ? "no part" : `no part of the ${to - from} examined`;
  const count = (part: CompiledQuery) => index.matches(part, from, to, Number.POSITIVE_INFINITY).found.length;
  const reasons: string[] = [];
  const reading = query.readings[0] ?? [];
  for (const word of reading) {
    if (word.prefixes.some((prefix) => index.hasWord(prefix)) || Object.keys(word.codes).length > 0) continue;
    const near = nearWords(
      word.prefixes[0] as string,
      index,
      known,
      Math.min(3, typosAllowed(word.prefixes[0] as string) + 1),
    );
    reasons.push(
      `"${word.prefixes[0]}" is in no part's text nor in the name of any material, process, category, standard or criticality${near.length > 0 ? ` (closest known words: ${near.join(", ")})` : ""}`,
    );
  }
  if (reasons.length > 0) return said(reasons, args, complete);
  const byFilter = FILTER_KINDS.filter((kind) => filters[kind]).map((kind) => ({
    kind,
    parts: count({ filters: { [kind]: query.filters[kind] }, readings: [] }),
  }));
  for (const { kind, parts } of byFilter) {
    if (parts === 0)
      reasons.push(`${FILTER_ARGUMENT[kind]} ${(filters[kind] ?? []).join(", ")}: ${scope} has it`);
  }
  const withText =
    reading.length > 0 && reasons.length === 0 ? count({ filters: {}, readings: query.readings }) : undefined;
  if (withText === 0) {
    const alone = reading.map(
      (word, w) => `"${word.prefixes[0]}" ${count({ filters: {}, readings: [[reading[w] as QueryWord]] })}`,
    );
    reasons.push(
      `each word matches parts, but ${scope} matches every word (parts per word: ${alone.join(", ")})`,
    );
  }
  if (reasons.length === 0) {
    const parts = [
      ...(withText === undefined ? [] : [`the text matches ${withText} parts`]),
      ...byFilter.map(({ kind, parts }) => `${FILTER_ARGUMENT[kind]} ${parts}`),
    ];
    reasons.push(`${parts.join(", ")}, but ${scope} matches them all together`);
  }
  return said(reasons, args, complete);
}

function said(reasons: string[], args: PartSearchArgs, complete: boolean): string {
  const more = complete
    ? "complete means every part was examined."
    : "More parts remain: continue with nextCursor.";
  const widen = args.text === undefined ? "" : " Drop a word or a filter to widen the search.";
  return `Nothing found: ${reasons.join("; ")}.${widen} ${more}`;
}
