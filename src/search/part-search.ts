// search_parts: reads list_parts on the model's behalf (./page-reader.ts: several pages at once, a
// bounded number per call, within the call's deadline) into the token's index (./part-indexes.ts)
// and answers the parts that match, each with how it matched.
//
// While the catalogue is being read, a result is in listing order and a cursor is one position
// in it; once it is read, a result is ranked and a cursor is the rank and position of the last
// part shown. Any process continues from either (./cursor.ts).
import { type CallOptions, PartsApiError } from "../client";
import type { SearchContext } from "./context";
import { type CursorPlace, decodeCursor, encodeCursor, searchDigest } from "./cursor";
import { SearchRefusal } from "./errors";
import { referenceLabel, whyNothing } from "./explain";
import { type Known, NO_RECORDS } from "./kinds";
import type { KnownRecords } from "./known-records";
import { type Progress, stopNotice, tooLargeNotice } from "./page-reader";
import {
  type CompiledQuery,
  FILTER_KINDS,
  type FilterKind,
  type Match,
  type PartSummary,
} from "./part-columns";
import type { PartIndex } from "./part-index";
import type { Held, ViewKey } from "./part-indexes";
import {
  compileQuery,
  FILTER_ARGUMENT,
  type Filters,
  filtersOf,
  keepNamedFillers,
  ownWordsOnly,
  type PartSearchArgs,
  type TextQuery,
  textReadings,
} from "./query";
import { type KeptAnswer, RankedAnswers } from "./ranked-answers";
import { type MatchRank, RankedAnswer } from "./ranking";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 50;

/** A part found: its summary, and when a referenced record matched words its own text lacks, which. */
export type FoundPart = PartSummary & { matched?: string };

export interface PartSearchResult {
  /** "18 of 25 matches so far; more with the cursor", or "25 matches": first, so the text form leads with it. */
  summary: string;
  matchedSoFar: number;
  total?: number;
  items: FoundPart[];
  scanned: number;
  complete: boolean;
  nextCursor?: string;
  /** Filler words of the text left out ("which", "parts", "needing"). */
  ignoredWords?: string[];
  /** How the text was read (typos), or why nothing matched. */
  hint?: string;
}

/** How far a reading of the whole catalogue got (resolve_parts reads it before matching lines). */
export interface CatalogueReading {
  complete: boolean;
  nextCursor?: string;
  /** Why the reading cannot go further, when it stopped short of the end. */
  hint?: string;
}

/** The counts in words, for the text form to lead with: "5 of 25 matches; more with the cursor". */
function countsSummary(
  counts: { matchedSoFar: number; total?: number },
  shown: number,
  more: boolean,
  shownBefore: number,
): string {
  const matches = (n: number) => `${n} ${n === 1 ? "match" : "matches"}`;
  const { matchedSoFar, total } = counts;
  if (!more && total !== undefined && shownBefore > 0 && shown > 0)
    return `the last ${shown} of ${matches(total)}`;
  if (!more) return total === undefined ? `${matches(matchedSoFar)} in the parts searched` : matches(total);
  return total === undefined
    ? `${matches(matchedSoFar)} so far; more with the cursor`
    : `${shown} of ${matches(total)} here; more with the cursor`;
}

/** Counts kept per index (searches of one token), at most. */
const MAX_COUNTS_KEPT = 256;

/**
 * Parts matched so far: those before the cursor (it carries their count) and those in the run
 * read from it; the total once that run reaches the listing's end.
 */
function countsOf(
  index: PartIndex,
  covered: number,
  matchedSoFar: number,
): { matchedSoFar: number; total?: number } {
  const whole = index.endsBy(covered) && index.stopsBy(covered) === undefined;
  return whole ? { matchedSoFar, total: matchedSoFar } : { matchedSoFar };
}

/** The digest of a search, which its cursors carry: every argument that changes the answer. */
function digestOf(tokenHash: string, view: ViewKey, filters: Filters, asked: TextQuery): Buffer {
  const spelled = [...asked.writtenAs].filter(([stem, written]) => stem !== written);
  return searchDigest(tokenHash, {
    view,
    filters,
    readings: asked.readings,
    ...(asked.versions.length > 0 && { versions: asked.versions }),
    ...(asked.ignored.length > 0 && { ignored: asked.ignored }),
    // Words folded to the same stems match alike but rank apart ("anodised", "anodized").
    ...(spelled.length > 0 && { spelled }),
  });
}

/** One search_parts call, as its answer is made. */
interface Search {
  args: PartSearchArgs;
  text: TextQuery;
  filters: Filters;
  query: CompiledQuery;
  known: Known;
  digest: Buffer;
  place: CursorPlace;
  limit: number;
  /** What the answer's hint will say. */
  notes: string[];
}

/**
 * What a count or answer of a search is kept by: its digest and its compiled query, which changes
 * with the records known (a standard renamed, a material first seen), and where it applies.
 */
function keptBy(search: Search, ...where: (number | boolean)[]): string {
  return `${search.digest.toString("base64url")}/${JSON.stringify(search.query)}/${where.join("/")}`;
}

/** Whether the index holds the whole listing, from its start to its end. */
function wholeRead(index: PartIndex): boolean {
  const end = index.coveredFrom(0);
  return index.endsBy(end) && index.stopsBy(end) === undefined;
}

/** An answer with the words the search ignored, and its hint when there is something to say. */
function withNotes<T extends object>(
  result: T,
  { text, notes }: Search,
): T & { ignoredWords?: string[]; hint?: string } {
  return {
    ...result,
    ...(text.ignored.length > 0 && { ignoredWords: text.ignored }),
    ...(notes.length > 0 && { hint: notes.join(" ") }),
  };
}

export class PartFinder {
  readonly #context: SearchContext;
  /** Matches counted in a run of an index, by search digest, start and end of the run. */
  readonly #counted = new WeakMap<PartIndex, Map<string, number>>();
  /** Whole answers ranked, per index, by search digest and the index's extent. */
  readonly #answers = new RankedAnswers();
  readonly #known: KnownRecords;
  readonly #suggest: (kind: FilterKind, code: string, call: CallOptions) => Promise<string | undefined>;

  constructor(
    context: SearchContext,
    known: KnownRecords,
    suggest: (kind: FilterKind, code: string, call: CallOptions) => Promise<string | undefined>,
  ) {
    this.#context = context;
    this.#known = known;
    this.#suggest = suggest;
  }

  async search(args: PartSearchArgs, call: CallOptions, progress?: Progress): Promise<PartSearchResult> {
    const limit = args.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new SearchRefusal(`The limit must be a whole number from 1 to ${MAX_LIMIT}.`);
    }
    const filters = filtersOf(args);
    const asked = textReadings(args.text);
    const tokenHash = this.#context.tokenHash(call);
    const view: ViewKey = args.view ?? "ALL";
    const digest = digestOf(tokenHash, view, filters, asked);
    const place: CursorPlace =
      args.cursor === undefined ? { position: 0, matchedBefore: 0 } : decodeCursor(args.cursor, digest);
    const held = this.#context.indexes.held(tokenHash, view);
    const { index } = held;
    await this.#refuseUnknownCodes(filters, index, call);

    if (place.rank === undefined) {
      await this.#readForPage(
        held,
        tokenHash,
        view,
        asked.readings,
        filters,
        place.position,
        limit,
        call,
        progress,
      );
    } else if (!wholeRead(index)) {
      // A ranked answer goes on only over the whole catalogue: a process that has not read it reads it now.
      await this.#context.read(held, tokenHash, view, index.coveredFrom(0), call, progress, () => false);
    }

    // Referenced records matter only to words and to a category's descendants.
    const known =
      asked.readings.length > 0 || filters.category ? await this.#known.knownRecords(call) : NO_RECORDS;
    // A filler word that names a known record is searched like any other word.
    const text = keepNamedFillers(asked, known);
    const notes: string[] = [];
    const query = compileQuery(text, filters, index, known, notes);
    const search: Search = { args, text, filters, query, known, digest, place, limit, notes };
    if (index.tooLarge > 0) notes.push(tooLargeNotice(index.tooLarge));
    // Once the whole catalogue is read, an answer is ranked; while it is still being read, a search
    // answers in listing order, and its cursor goes on in listing order.
    if (wholeRead(index) && (place.rank !== undefined || place.position === 0))
      return this.#ranked(search, index);
    if (place.rank !== undefined) return this.#stillReading(search, index);
    return this.#listed(search, index);
  }

  /** Reads pages from `start` until this call has found more than a page of matches, or the call's share is read. */
  async #readForPage(
    held: Held,
    tokenHash: string,
    view: ViewKey,
    readings: string[][],
    filters: Filters,
    start: number,
    limit: number,
    call: CallOptions,
    progress: Progress | undefined,
  ): Promise<void> {
    const { index } = held;
    // While pages are read, the parts' own words and the codes as given are enough to tell when
    // this call has found more than a page: whatever they match, the whole query matches too
    // (a version named in the text aside: then the reading may stop early, and the cursor goes on).
    const early = ownWordsOnly(readings, filters);
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
      await this.#context.read(held, tokenHash, view, evaluatedTo, call, progress, enough);
    }
  }

  /**
   * An answer over the whole catalogue, ranked (./ranking.ts): own words and records before a
   * category name or the description alone, exact before folded before typos, then listing order.
   * The page is what ranks after the cursor's part.
   */
  #ranked(search: Search, index: PartIndex): PartSearchResult {
    const { place, limit, notes } = search;
    const end = index.coveredFrom(0);
    const kept = this.#rankedAnswer(search, index, end);
    const { answer } = kept;
    const from = place.rank === undefined ? 0 : answer.after(place.rank, place.position);
    const to = Math.min(answer.length, from + limit);
    const items: FoundPart[] = [];
    for (let i = from; i < to; i++)
      items.push(this.#item(answer.match(i), search.query, index, search.known, answer.rank(i)));
    const more = to < answer.length;
    if (items.length === 0 && place.rank !== undefined)
      notes.push(this.#whyNothing(search, index, end, end, true));
    // Why nothing matches takes a pass over the catalogue per word: a repeat reads it from the answer kept.
    if (items.length === 0 && place.rank === undefined) {
      kept.whyNothing ??= this.#whyNothing(search, index, 0, end, true);
      notes.push(kept.whyNothing);
    }
    const counts = { matchedSoFar: answer.length, total: answer.length };
    const last = to - 1;
    const result = {
      summary: countsSummary(counts, items.length, more, place.matchedBefore),
      ...counts,
      items,
      scanned: index.partsBefore(end),
      complete: !more,
      ...(more && {
        nextCursor: encodeCursor(
          answer.match(last).position,
          search.digest,
          place.matchedBefore + items.length,
          answer.key(last),
        ),
      }),
    };
    return withNotes(result, search);
  }

  /** The whole answer ranked, kept per index for the searches' next pages and repeats. */
  #rankedAnswer(search: Search, index: PartIndex, end: number): KeptAnswer {
    const key = keptBy(search, end, search.args.text === undefined);
    return this.#answers.get(index, key, () => {
      const all = index.matches(search.query, 0, end, Number.POSITIVE_INFINITY).found;
      return new RankedAnswer(all, index.ranks(search.query, all));
    });
  }

  /** A ranked answer's next page asked of a process that could not read the whole catalogue in this call. */
  #stillReading(search: Search, index: PartIndex): PartSearchResult {
    const covered = index.coveredFrom(0);
    const stopped = index.stopsBy(covered);
    const read = index.partsBefore(covered);
    if (stopped) {
      search.notes.push(
        `${stopNotice(stopped, read)} This answer was ranked over the whole catalogue, which cannot be read now: search again without cursor for the parts in listing order.`,
      );
    } else if (read === 0) {
      throw new SearchRefusal("The Parts API could not be read in time: try again shortly.");
    } else {
      search.notes.push(
        `This ranked answer goes on once the whole catalogue is read; ${read} parts are read so far. Call again with the same cursor.`,
      );
    }
    const counts = { matchedSoFar: search.place.matchedBefore };
    const result = {
      summary: stopped
        ? "The ranked answer cannot go on"
        : "Still reading the catalogue; more with the cursor",
      ...counts,
      items: [],
      scanned: read,
      complete: false,
      ...(!stopped && { nextCursor: search.args.cursor as string }),
    };
    return withNotes(result, search);
  }

  /** A page of the parts matched from the cursor's position on, in listing order. */
  #listed(search: Search, index: PartIndex): PartSearchResult {
    const { query, place, limit, notes, digest } = search;
    const start = place.position;
    const covered = index.coveredFrom(start);
    const { matches, inRun } = this.#matchesAndCount(
      index,
      query,
      start,
      covered,
      limit,
      keptBy(search, start, covered),
    );
    const shown = matches.slice(0, limit);
    const ranks = index.ranks(query, shown);
    const items = shown.map((match, i) =>
      this.#item(match, query, index, search.known, ranks[i] as MatchRank),
    );
    // An index that stopped short of the listing's end (memory budget, an empty page that says
    // more follow, an endless listing) gives no cursor: the hint says why and what was searched.
    const stopped = matches.length <= limit ? index.stopsBy(covered) : undefined;
    const complete = matches.length <= limit && index.endsBy(covered) && stopped === undefined;
    const next = matches.length > limit ? (matches[limit] as Match).position : covered;
    if (!complete && stopped === undefined && next === start && items.length === 0) {
      throw new SearchRefusal("The Parts API could not be read in time: try again shortly.");
    }
    if (stopped) notes.push(stopNotice(stopped, index.partsBefore(covered)));
    if (items.length === 0 && stopped === undefined)
      notes.push(this.#whyNothing(search, index, start, next, complete));
    const counts = countsOf(index, covered, place.matchedBefore + inRun);
    const result = {
      summary: countsSummary(counts, items.length, !complete && stopped === undefined, place.matchedBefore),
      ...counts,
      items,
      ...(complete || stopped
        ? { scanned: index.partsBefore(covered), complete }
        : {
            scanned: index.partsBefore(next),
            complete,
            nextCursor: encodeCursor(next, digest, place.matchedBefore + items.length),
          }),
    };
    return withNotes(result, search);
  }

  #whyNothing(search: Search, index: PartIndex, from: number, to: number, complete: boolean): string {
    const { args, text, query, filters, known } = search;
    return whyNothing(args, text, query, filters, index, from, to, complete, known);
  }

  /**
   * Reads the token's catalogue into its index, a call's worth of pages from `cursor` on: whether
   * the end was reached, else a cursor to go on from (any process) or why the reading stops.
   */
  async readCatalogue(
    view: ViewKey,
    cursor: string | undefined,
    call: CallOptions,
    progress?: Progress,
  ): Promise<CatalogueReading> {
    const tokenHash = this.#context.tokenHash(call);
    const digest = searchDigest(tokenHash, { view, reading: "the catalogue" });
    const start = cursor === undefined ? 0 : decodeCursor(cursor, digest).position;
    const held = this.#context.indexes.held(tokenHash, view);
    const { index } = held;
    if (!index.endsBy(index.coveredFrom(start))) {
      await this.#context.read(held, tokenHash, view, start, call, progress, () => false);
    }
    const covered = index.coveredFrom(start);
    const stopped = index.stopsBy(covered);
    if (stopped) return { complete: false, hint: stopNotice(stopped, index.partsBefore(covered)) };
    if (index.endsBy(covered)) return { complete: true };
    if (covered === start)
      throw new SearchRefusal("The Parts API could not be read in time: try again shortly.");
    return { complete: false, nextCursor: encodeCursor(covered, digest) };
  }

  /**
   * The first `limit + 1` matches of the run read from `start`, and how many the run holds. The
   * first time, one pass over the run gives both; the count is kept per index, so a repeat of the
   * same search stops at its page.
   */
  #matchesAndCount(
    index: PartIndex,
    query: CompiledQuery,
    start: number,
    covered: number,
    limit: number,
    key: string,
  ): { matches: Match[]; inRun: number } {
    let kept = this.#counted.get(index);
    if (kept === undefined) {
      kept = new Map();
      this.#counted.set(index, kept);
    }
    const inRun = kept.get(key);
    if (inRun !== undefined) return { matches: index.matches(query, start, covered, limit + 1).found, inRun };
    const all = index.matches(query, start, covered, Number.POSITIVE_INFINITY).found;
    if (kept.size >= MAX_COUNTS_KEPT) kept.clear();
    kept.set(key, all.length);
    return { matches: all.slice(0, limit + 1), inRun: all.length };
  }

  /** A match's summary, with `matched` when a referenced record matched words the part's own text lacks. */
  #item(match: Match, query: CompiledQuery, index: PartIndex, known: Known, rank: MatchRank): FoundPart {
    const summary = index.summary(match.position);
    const labels = new Set<string>();
    if (match.viaReference !== 0) {
      const references = index.referencesOf(match.position);
      const reading = query.readings[match.reading] ?? [];
      reading.forEach((word, w) => {
        if ((match.viaReference & (1 << w)) === 0) return;
        const label = referenceLabel(word, references, known);
        if (label !== undefined) labels.add(label);
      });
    }
    // A part found through nothing but its description says so: a loose match, ranked after others.
    if (rank.loose === "description") labels.add("description only");
    return labels.size > 0 ? { ...summary, matched: [...labels].join("; ") } : summary;
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
        const hint = await this.#suggest(kind, code, call);
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
        return (await this.#context.reference.batch("category", [code], call)).items.length > 0;
      await this.#context.reference[kind](code, call);
      return true;
    } catch (error) {
      if (error instanceof PartsApiError && error.kind === "cancelled") throw error;
      return (error as { status?: number }).status !== 404;
    }
  }
}
