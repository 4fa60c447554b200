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

  /** The positions of `among` with a word starting with one of `prefixes` outside their description. */
  strongAmong(prefixes: readonly string[], words: WordIndex, among: ReadonlySet<number>): Set<number> {
    const found = new Set<number>();
    for (const prefix of prefixes) addExcept(found, among, words, prefix, this.#descriptionOnly);
    return found;
  }

  /**
   * The positions of `among` that write a word starting with `written` exactly so: a word spelt
   * otherwise than its stem, or a stem (of `words`) the part writes as such.
   */
  exactAmong(written: string, words: WordIndex, among: ReadonlySet<number>): Set<number> {
    const found = new Set<number>();
    addExcept(found, among, this.#spelled, written);
    addExcept(found, among, words, written, this.#foldedOnly);
    return found;
  }
}

/** Adds the positions of `among` that some word of `words` starting with `prefix` has, but not those `except` has for it. */
function addExcept(
  found: Set<number>,
  among: ReadonlySet<number>,
  words: WordIndex,
  prefix: string,
  except?: WordIndex,
): void {
  for (const word of words.wordsStartingWith(prefix)) {
    const skip = new Set((except?.positionsOf(word) ?? []).filter((position) => among.has(position)));
    for (const position of words.positionsOf(word)) {
      if (among.has(position) && !skip.has(position)) found.add(position);
    }
  }
}
