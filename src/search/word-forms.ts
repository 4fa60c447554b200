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

  /** See WordIndex.settle. */
  settle(): void {
    this.#descriptionOnly.settle();
    this.#spelled.settle();
    this.#foldedOnly.settle();
  }

  /** The bytes `add` would count for these parts. */
  cost(batch: readonly PartWords[]): number {
    return (
      this.#descriptionOnly.cost(batch.map((forms) => forms.descriptionOnly)) +
      this.#spelled.cost(batch.map((forms) => forms.spelled)) +
      this.#foldedOnly.cost(batch.map((forms) => forms.foldedOnly))
    );
  }

  /**
   * Marks in `mask` the parts that have a word starting with one of `prefixes` outside their
   * description (STRONG), and those that write a word starting with `written` exactly so
   * (EXACT_FORM): a word spelt otherwise than its stem, or a stem (of `words`) the part writes as
   * such. `scratch`, as long as `mask`, is all zeros and is left so.
   */
  mark(
    mask: Uint8Array,
    scratch: Uint8Array,
    words: WordIndex,
    prefixes: readonly string[],
    written: string | undefined,
  ): void {
    for (const prefix of prefixes) markExcept(mask, STRONG, scratch, words, prefix, this.#descriptionOnly);
    if (written === undefined) return;
    markExcept(mask, EXACT_FORM, scratch, this.#spelled, written);
    markExcept(mask, EXACT_FORM, scratch, words, written, this.#foldedOnly);
  }
}

export const STRONG = 1;
export const EXACT_FORM = 2;

/** Sets `bit` in `mask` for the positions that some word of `words` starting with `prefix` has, but not those `except` has for that same word. */
function markExcept(
  mask: Uint8Array,
  bit: number,
  scratch: Uint8Array,
  words: WordIndex,
  prefix: string,
  except?: WordIndex,
): void {
  for (const word of words.wordsStartingWith(prefix)) {
    const skipped = except?.positionsOf(word) ?? [];
    for (const position of skipped) scratch[position] = 1;
    for (const position of words.positionsOf(word))
      if (scratch[position] === 0) mask[position] = (mask[position] as number) | bit;
    for (const position of skipped) scratch[position] = 0;
  }
}
