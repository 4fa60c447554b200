// How each part of an answer met its query, for the order of a whole answer (decisions.md,
// "Finding things, third round"): matches through the part's own title, keywords or referenced
// records before those only through a category name or the description; within each, words
// written exactly as the text wrote them before folded forms ("anodised" / "anodized"), folded
// before typos. Worked out at query time from the index's word forms: a word at a time, marked for
// every part that has it, and read for the answer's parts.
import { OBJECT, TYPED_ARRAY } from "./heap-sizes";
import type { CompiledQuery, Match, QueryWord } from "./part-columns";
import { EXACT_FORM, STRONG, type WordForms } from "./word-forms";
import type { WordIndex } from "./word-index";

const EXACT = 0;
const FOLDED = 1;
const TYPO = 2;

export interface MatchRank {
  /** The weakest way a word matched: EXACT, FOLDED or TYPO. */
  quality: number;
  /** Set when some word matched only through a category name or only through the description. */
  loose?: "category" | "description";
}

export function rankMatches(
  words: WordIndex,
  forms: WordForms,
  query: CompiledQuery,
  found: readonly Match[],
  /** Whether the part at a position names a record of the word other than a category. */
  namesRecord: (position: number, word: QueryWord) => boolean,
): MatchRank[] {
  const ranks = found.map((): MatchRank => ({ quality: EXACT }));
  if (found.length === 0) return ranks;
  const size = found.reduce((most, match) => Math.max(most, match.position), 0) + 1;
  // One word at a time, over every match of its reading: two arrays the size of the listing.
  const mask = new Uint8Array(size);
  const scratch = new Uint8Array(size);
  query.readings.forEach((reading, r) => {
    reading.forEach((word, w) => {
      mask.fill(0);
      forms.mark(
        mask,
        scratch,
        words,
        word.prefixes,
        word.typo ? undefined : (word.written ?? word.prefixes[0]),
      );
      found.forEach((match, m) => {
        if (match.reading !== r) return;
        const rank = ranks[m] as MatchRank;
        if (word.typo) rank.quality = TYPO;
        if ((match.viaReference & (1 << w)) !== 0) {
          if (rank.loose === undefined && !namesRecord(match.position, word)) rank.loose = "category";
          return;
        }
        const marks = mask[match.position] as number;
        if (!word.typo && (marks & EXACT_FORM) === 0) rank.quality = Math.max(rank.quality, FOLDED);
        if ((marks & STRONG) === 0 && rank.loose === undefined && !namesRecord(match.position, word))
          rank.loose = "description";
      });
    });
  });
  return ranks;
}

/** A match's place in the order of a whole answer, from 0 (first): strong before loose, then exact, folded, typo. */
function rankKey(rank: MatchRank): number {
  return (rank.loose === undefined ? 0 : 3) + rank.quality;
}

const LOOSE = [undefined, "category", "description"] as const;

/**
 * A whole answer's matches in ranked order: by rank key, then listing order. Kept compactly (11
 * bytes a match), so that the pages after the first are cut from it without matching again.
 */
export class RankedAnswer {
  readonly #positions: Uint32Array;
  readonly #keys: Uint8Array;
  readonly #readings: Uint8Array;
  readonly #viaReference: Uint32Array;
  readonly #loose: Uint8Array;

  /** `found` in listing order, `ranks` beside it. */
  constructor(found: readonly Match[], ranks: readonly MatchRank[]) {
    const n = found.length;
    this.#positions = new Uint32Array(n);
    this.#keys = new Uint8Array(n);
    this.#readings = new Uint8Array(n);
    this.#viaReference = new Uint32Array(n);
    this.#loose = new Uint8Array(n);
    // A counting sort by key keeps listing order within a key.
    const keys = ranks.map(rankKey);
    const next = new Array<number>(6).fill(0);
    for (const key of keys) next[key + 1] = (next[key + 1] as number) + 1;
    for (let key = 1; key < next.length; key++) next[key] = (next[key] as number) + (next[key - 1] as number);
    found.forEach((match, i) => {
      const key = keys[i] as number;
      const at = next[key] as number;
      next[key] = at + 1;
      this.#positions[at] = match.position;
      this.#keys[at] = key;
      this.#readings[at] = match.reading;
      this.#viaReference[at] = match.viaReference;
      this.#loose[at] = LOOSE.indexOf((ranks[i] as MatchRank).loose);
    });
  }

  get length(): number {
    return this.#positions.length;
  }

  /** Estimated memory held (./heap-sizes.ts). */
  get bytes(): number {
    return OBJECT + 5 * TYPED_ARRAY + this.length * 11;
  }

  /** Where the answer goes on after the part of this rank key at this position. */
  after(key: number, position: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const k = this.#keys[middle] as number;
      if (k < key || (k === key && (this.#positions[middle] as number) <= position)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  match(i: number): Match {
    return {
      position: this.#positions[i] as number,
      reading: this.#readings[i] as number,
      viaReference: this.#viaReference[i] as number,
    };
  }

  rank(i: number): MatchRank {
    const key = this.#keys[i] as number;
    const loose = LOOSE[this.#loose[i] as number];
    return { quality: key % 3, ...(loose && { loose }) };
  }

  key(i: number): number {
    return this.#keys[i] as number;
  }
}
