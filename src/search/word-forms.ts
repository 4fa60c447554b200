// Beside a part index's words (./word-index.ts), which a search matches, what ranking a whole
// answer needs (./ranking.ts): which parts have a word only in their description, and which wrote
// a word exactly as the search does rather than in a form folded to the same stem. Each holds only
// the exceptions (a part's other stems are its own words as written, outside the description), so
// that they cost a fraction of the words.
import { type PartWords, WordIndex } from "./word-index";

export class WordForms {
  /** Stems a part has only in its description. */
  readonly #descriptionOnly = new WordIndex();
  /** Words written otherwise than their stem ("anodised", "brackets"). */
  readonly #spelled = new WordIndex();
  /** Stems a part has only through another spelling (it says "anodised", never "anodized"). */
  readonly #foldedOnly = new WordIndex();

  get bytes(): number {
    return this.#descriptionOnly.bytes + this.#spelled.bytes + this.#foldedOnly.bytes;
  }

  /** Distinct words held. */
  get size(): number {
    return this.#descriptionOnly.size + this.#spelled.size + this.#foldedOnly.size;
  }

  add(position: number, forms: PartWords): void {
    this.#descriptionOnly.add(position, forms.descriptionOnly);
    this.#spelled.add(position, forms.spelled);
    this.#foldedOnly.add(position, forms.foldedOnly);
  }

  /** The bytes `add` would count for these parts. */
  cost(batch: readonly PartWords[]): number {
    return (
      this.#descriptionOnly.cost(batch.map((forms) => forms.descriptionOnly)) +
      this.#spelled.cost(batch.map((forms) => forms.spelled)) +
      this.#foldedOnly.cost(batch.map((forms) => forms.foldedOnly))
    );
  }

  /** 1 for each position of [from, to) with a word starting with one of `prefixes` outside its description. */
  strongMask(prefixes: readonly string[], words: WordIndex, from: number, to: number): Uint8Array {
    const mask = new Uint8Array(to - from);
    for (const prefix of prefixes) markExcept(mask, words, prefix, this.#descriptionOnly, from);
    return mask;
  }

  /**
   * 1 for each position of [from, to) that writes a word starting with `written` exactly so: a
   * word spelt otherwise than its stem, or a stem (of `words`) the part writes as such.
   */
  exactMask(written: string, words: WordIndex, from: number, to: number): Uint8Array {
    const mask = this.#spelled.mask([written], from, to);
    markExcept(mask, words, written, this.#foldedOnly, from);
    return mask;
  }
}

/** Marks the positions of each word of `words` starting with `prefix`, but those `except` has for that word. */
function markExcept(
  mask: Uint8Array,
  words: WordIndex,
  prefix: string,
  except: WordIndex,
  from: number,
): void {
  for (const word of words.wordsStartingWith(prefix)) {
    const excepted = except.positionsOf(word);
    const skip = excepted.length === 0 ? undefined : new Set(excepted);
    for (const position of words.positionsOf(word)) {
      const offset = position - from;
      if (offset >= 0 && offset < mask.length && skip?.has(position) !== true) mask[offset] = 1;
    }
  }
}
