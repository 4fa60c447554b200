// Search on the model's behalf: the API has no search and no lists of processes, materials,
// criticalities or categories, so this reads list_parts itself (./page-reader.ts: several pages
// at once, a bounded number per call, within the call's deadline) and keeps what it read in a
// per-token index (./part-indexes.ts).
//
// A result is in listing order, so a cursor is one position: any process continues from it.
import type { Category, Criticality, Material, PART_VIEWS, Process, Standard } from "../api/schemas";
import { type CallOptions, type PartsApiClient, PartsApiError } from "../client";
import type { ReferenceData, ReferenceKind } from "../reference";
import { SeenRecords } from "../seen";
import { decodeCursor, encodeCursor, searchDigest } from "./cursor";
import { SearchRefusal } from "./errors";
import { type Candidate, didYouMean, rankRecords, type Searchable, withLabel } from "./match";
import { type Progress, readPages, stopNotice, tooLargeNotice } from "./page-reader";
import {
  type CompiledQuery,
  FILTER_KINDS,
  type FilterKind,
  type PartIndex,
  type PartSummary,
} from "./part-index";
import { type Held, PartIndexes, VIEW_KEYS, type ViewKey } from "./part-indexes";
import { resolveCodes } from "./records";
import { readings, words } from "./text";

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

export interface PartSearchArgs {
  text?: string;
  materialId?: string;
  processId?: string;
  standardId?: string;
  criticalityId?: string;
  categoryId?: string;
  view?: PartView;
  limit?: number;
  cursor?: string;
}

export interface PartSearchResult {
  items: PartSummary[];
  scanned: number;
  complete: boolean;
  nextCursor?: string;
  /** When the text also names materials, processes or standards: their codes, and the filter. */
  hint?: string;
}

/** Kinds a model may name in a search text ("Ti-6Al-4V"), with the filter that finds their parts. */
const NAMED_IN_TEXT = [
  ["material", "materialId"],
  ["process", "processId"],
  ["standard", "standardId"],
] as const;
const MAX_NAMED = 3;

interface ReferenceRecords {
  process: Process;
  material: Material;
  standard: Standard;
  criticality: Criticality;
  category: Category;
}
export type SuggestKind = ReferenceKind | "part" | "rfq" | "factory";

/** What of each kind of record a fragment is compared with. */
const SEARCHABLE: { [K in ReferenceKind]: (record: ReferenceRecords[K]) => Searchable } = {
  process: (r) => ({ keys: [r.code], names: [r.name] }),
  material: (r) => ({ keys: [r.code], names: [r.name] }),
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

const FILTER_ARGUMENT: Record<FilterKind, keyof PartSearchArgs> = {
  process: "processId",
  material: "materialId",
  standard: "standardId",
  criticality: "criticalityId",
  category: "categoryId",
};

/** Part ids a did-you-mean compares an unknown id with, at most. */
const MAX_PART_CANDIDATES = 20_000;

export class PartSearch {
  readonly #api: PartsApiClient;
  readonly #reference: ReferenceData;
  readonly #seen: SeenRecords;
  readonly #defaultToken: string;
  readonly #options: Omit<PartSearchOptions, "seen">;
  readonly #indexes: PartIndexes;

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

  /** Drops what this token's indexes hold (after it created a part, say). */
  forget(call: CallOptions): void {
    this.#indexes.forget(this.#tokenHash(call));
  }

  async searchParts(args: PartSearchArgs, call: CallOptions, progress?: Progress): Promise<PartSearchResult> {
    const limit = args.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new SearchRefusal(`The limit must be a whole number from 1 to ${MAX_LIMIT}.`);
    }
    const query = compile(args);
    const tokenHash = this.#tokenHash(call);
    const view: ViewKey = args.view ?? "ALL";
    const digest = searchDigest(tokenHash, { view, filters: query.filters, readings: query.readings });
    const start = args.cursor === undefined ? 0 : decodeCursor(args.cursor, digest);
    const held = this.#indexes.held(tokenHash, view);
    const { index } = held;
    await this.#refuseUnknownCodes(query.filters, index, call);

    const found: number[] = [];
    let evaluatedTo = start;
    const evaluate = (to: number) => {
      if (found.length <= limit && to > evaluatedTo) {
        const { positions, scannedTo } = index.matches(query, evaluatedTo, to, limit + 1 - found.length);
        found.push(...positions);
        evaluatedTo = scannedTo;
      }
      return found.length > limit;
    };
    const atEnd = () => index.endsBy(evaluatedTo);
    if (!evaluate(index.coveredFrom(start)) && !atEnd()) {
      await this.#read(held, tokenHash, view, evaluatedTo, call, progress, evaluate);
    }

    const items = found.slice(0, limit).map((position) => index.summary(position));
    const stopped = found.length <= limit ? index.stopsBy(evaluatedTo) : undefined;
    const complete = found.length <= limit && atEnd() && stopped === undefined;
    const next = found.length > limit ? (found[limit] as number) : evaluatedTo;
    if (!complete && stopped === undefined && next === start && items.length === 0) {
      throw new SearchRefusal("The Parts API could not be read in time: try again shortly.");
    }
    // Said once, with the first page: a continuation's caller has read it.
    const hint =
      args.text !== undefined && args.cursor === undefined && query.readings.length > 0
        ? await this.#textHint(args.text, items.length === 0 && complete, call)
        : undefined;
    const result =
      complete || stopped
        ? { items, scanned: complete ? (index.total ?? evaluatedTo) : evaluatedTo, complete }
        : { items, scanned: next, complete, nextCursor: encodeCursor(next, digest) };
    const notes = [
      stopped && stopNotice(stopped, evaluatedTo),
      index.tooLarge > 0 && tooLargeNotice(index.tooLarge),
      hint,
    ]
      .filter(Boolean)
      .join(" ");
    return notes ? { ...result, hint: notes } : result;
  }

  /**
   * The materials, processes and standards the text as a whole names ("Ti-6Al-4V" is material ti64),
   * with the filter that finds the parts using them: the text matches only the parts' own words,
   * so "parts made of Ti-6Al-4V" is a filter, not a text. Only records this token already has are
   * named (a hint never costs a request); when none is and nothing matched, how to search by code.
   */
  async #textHint(text: string, nothingFound: boolean, call: CallOptions): Promise<string | undefined> {
    const named: string[] = [];
    for (const [kind, filter] of NAMED_IN_TEXT) {
      const records = await this.#cachedRecords(kind, call);
      const fields = SEARCHABLE[kind] as (record: (typeof records)[number]) => Searchable;
      const matches = rankRecords(records, text, fields, { typos: false }).slice(0, MAX_NAMED);
      if (matches.length === 0) continue;
      const list = matches.map((record) => withLabel(record.code, record.name)).join(", ");
      named.push(`${kind} ${list}: ${filter}`);
    }
    if (named.length > 0) {
      return `The text also names ${named.join("; ")}. Text matches only the parts' own words: to find the parts that use one, search with its code in that filter.`;
    }
    return nothingFound
      ? "No part's own words match. For parts made of a material, by a process or to a standard, find its code with search_reference and search with it in materialId, processId or standardId."
      : undefined;
  }

  /**
   * Records of one kind that match `text`, best first (all of them without text). Standards come
   * from list_standards; the other kinds, which the API cannot list, are the codes on the parts
   * read so far (read first when nothing is), resolved through the reference cache.
   */
  async searchReference<K extends ReferenceKind>(
    kind: K,
    text: string | undefined,
    call: CallOptions,
    progress?: Progress,
  ): Promise<{ items: ReferenceRecords[K][]; complete: boolean }> {
    const { records, complete } = await this.#records(kind, call, progress);
    const ranked = rankRecords(
      records,
      text,
      SEARCHABLE[kind] as (record: ReferenceRecords[K]) => Searchable,
    );
    return {
      items: ranked.slice(0, MAX_REFERENCE_ITEMS),
      complete: complete && ranked.length <= MAX_REFERENCE_ITEMS,
    };
  }

  /**
   * A hint for a code or id the API does not know, naming the closest known records:
   * `did you mean pa12 (Polyamide 12 (PA12))?`; undefined when nothing is close. Never fails.
   */
  async suggest(kind: SuggestKind, unknown: string, call: CallOptions): Promise<string | undefined> {
    try {
      return didYouMean(unknown, await this.#candidates(kind, call));
    } catch {
      return undefined;
    }
  }

  async #candidates(kind: SuggestKind, call: CallOptions): Promise<Candidate[]> {
    // RFQs and factories cannot be listed: the ids this token has been shown are all there is.
    if (kind === "rfq" || kind === "factory") {
      return this.#seen.known(kind, call).map((id) => ({ keys: [id], names: [] }));
    }
    if (kind === "part") {
      const tokenHash = this.#tokenHash(call);
      const titles = new Map<string, string | undefined>();
      for (const id of this.#seen.known("part", call)) titles.set(id, undefined);
      for (const view of VIEW_KEYS) {
        const held = this.#indexes.peek(tokenHash, view);
        for (const part of held?.index.parts() ?? []) {
          if (titles.size >= MAX_PART_CANDIDATES) break;
          titles.set(part.id, part.title);
        }
      }
      return [...titles].map(([id, title]) => ({
        keys: [id],
        names: [],
        ...(title !== undefined && { label: title }),
      }));
    }
    const { records } = await this.#records(kind, call, undefined, SUGGESTION_PAGES);
    const fields = SEARCHABLE[kind] as (record: ReferenceRecords[ReferenceKind]) => Searchable;
    return records.map((record) => ({ ...fields(record), label: record.name }));
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
    const codes = this.#knownCodes(kind, call);
    const resolved = await this.#indexes.reading(tokenHash, "ALL", all, () =>
      resolveCodes(this.#reference, all.index, kind as FilterKind, codes, call),
    );
    return { records: resolved.records as ReferenceRecords[K][], complete: complete && resolved.complete };
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

  /** The records of a kind this token already has in the reference cache: no request at all. */
  async #cachedRecords(kind: (typeof NAMED_IN_TEXT)[number][0], call: CallOptions) {
    if (kind === "standard") return this.#reference.cachedStandards(call);
    const found = await Promise.all(
      this.#knownCodes(kind, call).map((code) => this.#reference.cachedRecord(kind, code, call)),
    );
    return found.filter((record) => record !== undefined) as (Material | Process)[];
  }

  /**
   * A filter naming a code that no part read so far carries may be a code the API does not know
   * (a name, or a wrong case): one lookup, through the reference cache, tells; if it is unknown
   * the search is refused with the closest codes, instead of reading the whole catalogue for nothing.
   */
  async #refuseUnknownCodes(
    filters: CompiledQuery["filters"],
    index: PartIndex,
    call: CallOptions,
  ): Promise<void> {
    for (const kind of FILTER_KINDS) {
      const code = filters[kind];
      if (code === undefined || index.hasCode(kind, code) || (await this.#exists(kind, code, call))) continue;
      const hint = await this.suggest(kind, code, call);
      throw new SearchRefusal(
        `${FILTER_ARGUMENT[kind]} ${JSON.stringify(code)} is not a ${kind} code the Parts API knows${hint ? `; ${hint}` : "."} Find codes with search_reference.`,
      );
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

/** Filters by kind and the text's readings as word lists (no text: no readings). */
function compile(args: PartSearchArgs): CompiledQuery {
  const filters: CompiledQuery["filters"] = {};
  for (const kind of FILTER_KINDS) {
    const code = args[FILTER_ARGUMENT[kind]];
    if (code !== undefined) filters[kind] = code as string;
  }
  const text = args.text?.trim() ?? "";
  const wordLists = text === "" ? [] : readings(text).map((reading) => [...new Set(words(reading))]);
  return { filters, readings: wordLists.filter((list) => list.length > 0) };
}
