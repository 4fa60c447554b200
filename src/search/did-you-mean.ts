// Did-you-mean for a code or id the API does not know, and reads by code: the closest records the
// token knows (./known-records.ts), the part ids it was shown or has read, and the RFQ and factory
// ids it was shown (the API cannot list those).

import type { KnownKind, ReferenceKind, ReferenceRecords } from "../api/kinds";
import type { CallOptions } from "../client";
import type { SearchContext } from "./context";
import { SEARCHABLE } from "./kinds";
import type { KnownRecords } from "./known-records";
import { type Candidate, didYouMean, didYouMeanId, type Searchable, sameCode } from "./match";
import type { PartIndex } from "./part-index";
import { VIEW_KEYS } from "./part-indexes";
import { compact } from "./text";

/**
 * Pages a did-you-mean may read when nothing has been read for the token yet: a failed lookup
 * should not cost a whole scan, and the first 1,000 parts name most codes in use.
 */
const SUGGESTION_PAGES = 20;
/** Unknown codes of one call that get a did-you-mean, at most (the others are listed without). */
const MAX_SUGGESTED_PER_CALL = 30;
/** Part ids a did-you-mean compares an unknown id with, at most. */
const MAX_PART_CANDIDATES = 20_000;

type PartCandidate = Candidate & { compactKey: string };

const partCandidate = (id: string, title?: string): PartCandidate => ({
  keys: [id],
  names: [],
  compactKey: compact(id),
  ...(title !== undefined && { label: title }),
});

export class Suggestions {
  readonly #context: SearchContext;
  readonly #known: KnownRecords;
  /** Part-id candidates per index, made again when it has grown: each candidate is folded once. */
  readonly #partCandidates = new WeakMap<PartIndex, { pages: number; candidates: PartCandidate[] }>();

  constructor(context: SearchContext, known: KnownRecords) {
    this.#context = context;
    this.#known = known;
  }

  /**
   * A hint for a code or id the API does not know, naming the closest known records:
   * `did you mean pa12 (Polyamide 12 (PA12))?`; undefined when nothing is close. Never fails.
   */
  async suggest(kind: KnownKind, unknown: string, call: CallOptions): Promise<string | undefined> {
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
    entries: readonly { kind: KnownKind; id: string }[],
    call: CallOptions,
  ): Promise<(string | undefined)[]> {
    const candidates = new Map<KnownKind, Promise<Candidate[]>>();
    const of = (kind: KnownKind) => {
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

  async #candidates(kind: Exclude<KnownKind, "part">, call: CallOptions): Promise<Candidate[]> {
    // RFQs and factories cannot be listed: the ids this token has been shown are all there is.
    if (kind === "rfq" || kind === "factory") {
      return this.#context.seen.known(kind, call).map((id) => ({ keys: [id], names: [] }));
    }
    const { records } = await this.#known.records(kind, call, undefined, SUGGESTION_PAGES);
    const fields = SEARCHABLE[kind] as (record: ReferenceRecords[ReferenceKind]) => Searchable;
    return records.map((record) => ({ ...fields(record), label: record.name }));
  }

  /** Part ids this token was shown or has read, with their titles, at most MAX_PART_CANDIDATES. */
  #partIds(call: CallOptions): PartCandidate[] {
    const tokenHash = this.#context.tokenHash(call);
    const candidates = new Map<string, PartCandidate>();
    for (const id of this.#context.seen.known("part", call)) candidates.set(id, partCandidate(id));
    for (const view of VIEW_KEYS) {
      const index = this.#context.indexes.peek(tokenHash, view)?.index;
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
}
