// Whole answers ranked (./ranking.ts), kept per index: the next pages of a search, and its
// repeats (a model repeats searches; resolve_parts answers a whole list again with each cursor),
// are cut from them instead of matching the catalogue again. Bounded by count and by bytes, an
// eighth of what the index itself holds (at least 64 KiB); this memory is beside the indexes'
// budget, not in it.
import { MAP_ENTRY, OBJECT, stringBytes } from "./heap-sizes";
import type { PartIndex } from "./part-index";
import type { RankedAnswer } from "./ranking";

/** A whole answer ranked, and when it is empty, why. */
export interface KeptAnswer {
  answer: RankedAnswer;
  whyNothing?: string;
}

const MAX_ANSWERS = 256;
/** Bytes kept for a small index, at least. */
const MIN_BYTES = 64 << 10;

export class RankedAnswers {
  readonly #kept = new WeakMap<PartIndex, { answers: Map<string, KeptAnswer>; bytes: number }>();

  /** The answer kept for `key` in this index, or made now and kept, the least recently used making room. */
  get(index: PartIndex, key: string, make: () => RankedAnswer): KeptAnswer {
    let kept = this.#kept.get(index);
    if (kept === undefined) {
      kept = { answers: new Map(), bytes: 0 };
      this.#kept.set(index, kept);
    }
    const found = kept.answers.get(key);
    if (found !== undefined) {
      kept.answers.delete(key);
      kept.answers.set(key, found);
      return found;
    }
    const made = { answer: make() };
    const bytes = entryBytes(key, made.answer);
    const room = Math.max(MIN_BYTES, index.bytes / 8);
    if (bytes > room) return made;
    for (const [oldest, { answer }] of kept.answers) {
      if (kept.answers.size < MAX_ANSWERS && kept.bytes + bytes <= room) break;
      kept.answers.delete(oldest);
      kept.bytes -= entryBytes(oldest, answer);
    }
    kept.answers.set(key, made);
    kept.bytes += bytes;
    return made;
  }
}

/** An answer kept, with its key and entry (its explanation, when empty, is a short sentence). */
function entryBytes(key: string, answer: RankedAnswer): number {
  return stringBytes(key) + MAP_ENTRY + OBJECT + answer.bytes;
}
