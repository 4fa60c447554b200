// The inverted index of the words of each part's text, for a search's text: each word (stemmed:
// ./text.ts) maps to the positions of the parts whose text has it, and a search word matches every
// indexed word it starts (a binary search over the sorted words). New words are kept unsorted until they are
// many, so adding a page does not re-sort the whole vocabulary.
import type { Part } from "../api/schemas";
import { ARRAY_HEADER, MAP_ENTRY, SLOT, stringBytes, TYPED_ARRAY } from "./heap-sizes";
import { editDistance } from "./match";
import { stem, words } from "./text";

/** Unsorted new words a search looks through before they are merged into the sorted ones. */
const MIN_MERGE = 4_096;

/** Words whose near words are remembered at most. */
const MAX_NEAR_MEMO = 256;

/**
 * Positions of a word: one, or several: a plain array while pages are read (the smallest for
 * short lists, and it grows), a Uint32Array once every page is read and the list is long (half
 * the bytes of an array's slots).
 */
type Posting = number | number[] | Uint32Array;

/** Positions from which a settled posting is kept as a Uint32Array: past its header's cost. */
const MIN_PACKED = 40;

/** The estimated bytes of a plain array of `n` positions grown one by one (capacity a power of two). */
const arrayBytes = (n: number) => ARRAY_HEADER + SLOT * 2 ** Math.ceil(Math.log2(Math.max(2, n)));

export class WordIndex {
  readonly #postings = new Map<string, Posting>();
  #sortedWords: string[] = [];
  #newWords: string[] = [];
  #bytes = 0;
  /** Answers of `near` until a word is added: a model repeats its searches. */
  readonly #nearMemo = new Map<string, string[]>();

  /** Estimated memory held (./heap-sizes.ts). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Distinct words indexed. */
  get size(): number {
    return this.#postings.size;
  }

  /** Indexes the words of a part's searchable text, as indexedWords gives them (distinct). */
  add(position: number, partWords: readonly string[]): void {
    for (const word of partWords) {
      const posting = this.#postings.get(word);
      if (posting === undefined) {
        this.#postings.set(word, position);
        this.#newWords.push(word);
        this.#nearMemo.clear();
        this.#bytes += stringBytes(word) + MAP_ENTRY + SLOT;
      } else if (typeof posting === "number") {
        this.#postings.set(word, [posting, position]);
        this.#bytes += ARRAY_HEADER + 2 * SLOT;
      } else if (posting instanceof Uint32Array) {
        throw new Error("a settled word index takes no more words");
      } else {
        // A growing array keeps spare room: count its capacity (V8 grows by about 1.5).
        if (posting.length >= 2 && (posting.length & (posting.length - 1)) === 0) {
          this.#bytes += posting.length * SLOT;
        }
        posting.push(position);
      }
    }
  }

  /** The bytes `add` would count for these words (a word twice in the batch counts as new twice). */
  cost(batch: readonly (readonly string[])[]): number {
    let bytes = 0;
    for (const partWords of batch) {
      for (const word of partWords) {
        const posting = this.#postings.get(word);
        if (posting === undefined) bytes += stringBytes(word) + MAP_ENTRY + SLOT;
        else if (typeof posting === "number") bytes += ARRAY_HEADER + 2 * SLOT;
        else if ((posting.length & (posting.length - 1)) === 0) bytes += posting.length * SLOT;
      }
    }
    return bytes;
  }

  /** 1 for each position of [from, to) whose text has a word that starts with one of `prefixes`. */
  mask(prefixes: readonly string[], from: number, to: number): Uint8Array {
    const mask = new Uint8Array(to - from);
    for (const prefix of prefixes) {
      for (const posting of this.#postingsStartingWith(prefix)) {
        if (typeof posting === "number") {
          if (posting >= from && posting < to) mask[posting - from] = 1;
          continue;
        }
        for (const position of posting) if (position >= from && position < to) mask[position - from] = 1;
      }
    }
    return mask;
  }

  /** Whether some indexed word starts with `prefix`. */
  has(prefix: string): boolean {
    return !this.#postingsStartingWith(prefix).next().done;
  }

  /**
   * Indexed words at most `limit` edits from `word` (a swap of neighbours is one), closest first,
   * at most `max`. Only words of about the same length are compared, so the cost is one pass
   * over the vocabulary with a cheap test for most words.
   */
  near(word: string, limit: number, max: number): string[] {
    const key = `${limit}/${max}/${word}`;
    const memo = this.#nearMemo.get(key);
    if (memo) return memo;
    const found: { word: string; distance: number }[] = [];
    const consider = (candidate: string) => {
      if (Math.abs(candidate.length - word.length) > limit || /\d/.test(candidate)) return;
      const distance = editDistance(word, candidate, limit);
      if (distance <= limit) found.push({ word: candidate, distance });
    };
    for (const candidate of this.#sorted()) consider(candidate);
    for (const candidate of this.#newWords) consider(candidate);
    const nearest = found
      .sort((a, b) => a.distance - b.distance || (a.word < b.word ? -1 : 1))
      .slice(0, max)
      .map((entry) => entry.word);
    if (this.#nearMemo.size >= MAX_NEAR_MEMO) this.#nearMemo.clear();
    this.#nearMemo.set(key, nearest);
    return nearest;
  }

  /** The positions of the parts whose text has exactly this word. */
  positionsOf(word: string): readonly number[] | Uint32Array {
    const posting = this.#postings.get(word);
    return posting === undefined ? [] : typeof posting === "number" ? [posting] : posting;
  }

  /** Postings of the words that start with `prefix`. */
  *#postingsStartingWith(prefix: string): Generator<Posting> {
    for (const word of this.wordsStartingWith(prefix)) yield this.#postings.get(word) as Posting;
  }

  /** The indexed words that start with `prefix`; a lone letter or digit matches only itself ("B" is no prefix of "bracket"). */
  *wordsStartingWith(prefix: string): Generator<string> {
    if (prefix.length === 1) {
      if (this.#postings.has(prefix)) yield prefix;
      return;
    }
    const sorted = this.#sorted();
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((sorted[middle] as string) < prefix) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < sorted.length && (sorted[i] as string).startsWith(prefix); i++)
      yield sorted[i] as string;
    for (const word of this.#newWords) if (word.startsWith(prefix)) yield word;
  }

  /**
   * The sorted words. Words added since are merged in only once they are many (each merge costs
   * a pass over all words); until then a search also looks through the unsorted recent ones.
   */
  #sorted(): string[] {
    if (this.#newWords.length < Math.max(MIN_MERGE, this.#sortedWords.length / 4)) return this.#sortedWords;
    return this.#merge();
  }

  /**
   * Once every page is read (no word is added after): the recent words merged into the sorted
   * ones, so that a search looks through none, and long lists of positions packed.
   */
  settle(): void {
    this.#merge();
    for (const [word, posting] of this.#postings) {
      if (!Array.isArray(posting) || posting.length < MIN_PACKED) continue;
      this.#postings.set(word, Uint32Array.from(posting));
      this.#bytes += TYPED_ARRAY + 4 * posting.length - arrayBytes(posting.length);
    }
  }

  #merge(): string[] {
    if (this.#newWords.length === 0) return this.#sortedWords;
    const added = this.#newWords.sort();
    const old = this.#sortedWords;
    const merged = new Array<string>(old.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < added.length)
      merged[k++] = (old[i] as string) < (added[j] as string) ? (old[i++] as string) : (added[j++] as string);
    while (i < old.length) merged[k++] = old[i++] as string;
    while (j < added.length) merged[k++] = added[j++] as string;
    this.#sortedWords = merged;
    this.#newWords = [];
    return merged;
  }
}

/**
 * Bounds on what one part adds to the index, whatever the API sends: a description of 450 KB is
 * a few thousand words, and 16.7 million distinct words overflow a Map. Only the first
 * MAX_FIELD_CHARS characters of a field are read, a part's first MAX_WORDS_PER_PART distinct
 * words are indexed, and a word is indexed by its first MAX_WORD_CHARS characters (a search word
 * that long still finds it by prefix).
 */
const MAX_FIELD_CHARS = 20_000;
const MAX_WORDS_PER_PART = 1_000;
export const MAX_WORD_CHARS = 64;

/**
 * The words of a part's text as the index keeps them, within the bounds above: its distinct stems
 * (`words`, what a search matches), and for ranking a whole answer (./ranking.ts) the stems
 * only its description has (`descriptionOnly`), the words written otherwise than their stem
 * (`spelled`: "anodised") and the stems the part never writes as such (`foldedOnly`).
 */
export interface PartWords {
  words: string[];
  descriptionOnly: string[];
  spelled: string[];
  foldedOnly: string[];
}

/** The words a part adds to an index and its word forms. */
export const wordCount = ({ words, descriptionOnly, spelled, foldedOnly }: PartWords): number =>
  words.length + descriptionOnly.length + spelled.length + foldedOnly.length;

/** searchableText's index of the description: the one field whose words are a loose match. */
const DESCRIPTION_FIELD = 1;

const cut = (word: string) => (word.length > MAX_WORD_CHARS ? word.slice(0, MAX_WORD_CHARS) : word);

export function indexedWords(part: Part): PartWords {
  const kept = new Set<string>();
  const strong = new Set<string>();
  const literal = new Set<string>();
  const spelled = new Set<string>();
  const fields = searchableText(part);
  for (let f = 0; f < fields.length && kept.size < MAX_WORDS_PER_PART; f++) {
    const field = fields[f];
    if (field === undefined) continue;
    for (const written of words(field.length > MAX_FIELD_CHARS ? field.slice(0, MAX_FIELD_CHARS) : field)) {
      const word = cut(stem(written));
      kept.add(word);
      if (f !== DESCRIPTION_FIELD) strong.add(word);
      if (cut(written) === word) literal.add(word);
      else spelled.add(cut(written));
      if (kept.size >= MAX_WORDS_PER_PART) break;
    }
  }
  const foldedOnly = literal.size === kept.size ? [] : [...kept].filter((word) => !literal.has(word));
  const descriptionOnly = strong.size === kept.size ? [] : [...kept].filter((word) => !strong.has(word));
  return { words: [...kept], descriptionOnly, spelled: [...spelled], foldedOnly };
}

/** What search_parts matches in a part (decisions.md): title, description, serial, external reference, version, keywords. */
export function searchableText(part: Part): (string | undefined)[] {
  return [part.title, part.description, part.serialId, part.externalRef, part.versionName, ...part.keywords];
}
