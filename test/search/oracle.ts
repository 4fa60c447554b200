// An independent, simple reading of the search rules (decisions.md, "Finding things" and its
// second and third rounds), for checking complete answers: which parts a query must return and
// which it may. It shares no matching code with src/search: words are folded and compared here.
//
// `must`: parts where every word of the text starts a word (a lone letter or digit: is a word) of
// the part's own text or of a record it references (material, process, standards,
// criticalities, its categories and every category above them), as written or as a plain
// plural's singular, and every filter names one of the part's codes (a category filter takes in
// the categories below it). `may` widens the words to what folding, typos and the vocabulary's
// families may add: a word of the part two edits away or sharing its first four letters, and any
// part with a material or process when the word is a family word.
import type { Part } from "../../src/api/schemas";
import type { Catalogue } from "../support/catalogue-api";

export interface OracleQuery {
  words: string[];
  materialId?: string;
  processId?: string;
  standardId?: string;
  criticalityId?: string;
  categoryId?: string;
}

const fold = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();

/** Words of a text, folded; with `runs`, the letter and digit runs inside each too (as in codes: f3001 → f, 3001). */
function wordsOf(text: string, runs = false): string[] {
  const found = fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
  if (!runs) return found;
  return [...found, ...found.flatMap((word) => word.match(/\p{L}+|\p{N}+/gu) ?? [])];
}

const singular = (word: string) =>
  word.length <= 4 || /\d/.test(word)
    ? word
    : word.endsWith("ies")
      ? `${word.slice(0, -3)}y`
      : /(ch|sh|ss|x|z)es$/.test(word)
        ? word.slice(0, -2)
        : word.endsWith("s") && !/(ss|us|is)$/.test(word)
          ? word.slice(0, -1)
          : word;

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j] as number;
      row[j] = Math.min(here + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = here;
    }
  }
  return row[b.length] as number;
}

export class Oracle {
  readonly #catalogue: Catalogue;
  readonly #isFamilyWord: (word: string) => boolean;

  constructor(catalogue: Catalogue, isFamilyWord: (word: string) => boolean) {
    this.#catalogue = catalogue;
    this.#isFamilyWord = isFamilyWord;
  }

  /** The categories a part is in: its own and every one above them. */
  categoriesOf(part: Part): string[] {
    const byId = new Map(this.#catalogue.categories.map((category) => [category.id, category]));
    const found: string[] = [];
    for (const id of part.categoryIds ?? []) {
      for (let at = byId.get(id); at && !found.includes(at.id); at = byId.get(at.parentId ?? ""))
        found.push(at.id);
    }
    return found;
  }

  /** The words a part's text and referenced records give it. */
  vocabularyOf(part: Part): string[] {
    const { categories } = this.#catalogue;
    const own = [
      part.title,
      part.description,
      part.serialId,
      part.externalRef,
      part.versionName,
      ...part.keywords,
    ]
      .filter((field): field is string => field !== undefined)
      .flatMap((field) => wordsOf(field));
    const named = this.#recordTexts(part);
    for (const id of this.categoriesOf(part)) {
      const category = categories.find((each) => each.id === id);
      if (category) named.push(category.name);
    }
    return [...own, ...named.flatMap((text) => wordsOf(text, true))];
  }

  /** The codes and names of the records a part references, categories aside. */
  #recordTexts(part: Part): string[] {
    const { materials, processes, standards, criticalities } = this.#catalogue;
    const texts: string[] = [];
    const material = materials.find((each) => each.code === part.materialId);
    const process = processes.find((each) => each.code === part.processId);
    for (const record of [material, process]) if (record) texts.push(record.code, record.name);
    for (const code of part.standardIds ?? []) {
      const standard = standards.find((each) => each.code === code);
      if (standard) texts.push(standard.code, standard.name, standard.governingBody ?? "");
    }
    for (const id of part.criticalityIds ?? []) {
      const criticality = criticalities.find((each) => each.id === id);
      if (criticality) texts.push(criticality.code, criticality.name);
    }
    return texts;
  }

  #passesFilters(part: Part, query: OracleQuery): boolean {
    if (query.materialId !== undefined && part.materialId !== query.materialId) return false;
    if (query.processId !== undefined && part.processId !== query.processId) return false;
    if (query.standardId !== undefined && !(part.standardIds ?? []).includes(query.standardId)) return false;
    if (query.criticalityId !== undefined && !(part.criticalityIds ?? []).includes(query.criticalityId))
      return false;
    return query.categoryId === undefined || this.categoriesOf(part).includes(query.categoryId);
  }

  /** Ids of the parts the rules say the query must return. */
  must(query: OracleQuery): Set<string> {
    const startsOne = (vocabulary: string[], word: string) =>
      vocabulary.some((term) =>
        word.length === 1 ? term === word : term.startsWith(word) || term.startsWith(singular(word)),
      );
    return new Set(
      this.#catalogue.parts
        .filter((part) => this.#passesFilters(part, query))
        .filter((part) => {
          const vocabulary = this.vocabularyOf(part);
          return query.words.every((word) => startsOne(vocabulary, word));
        })
        .map((part) => part.id),
    );
  }

  /**
   * Where the rules rank a part in a whole answer, when the oracle can tell: 0 when every word
   * starts a word of its own text outside the description as written; 1 when each does so, some
   * only as a plural's singular, and the part writes none of them as the text does; 2 when some
   * word is near nothing of its own text outside the description nor of its records other than
   * categories, no family word, and found in its description or a category name.
   */
  placeOf(part: Part, words: readonly string[]): 0 | 1 | 2 | undefined {
    const strong = [part.title, part.serialId, part.externalRef, part.versionName, ...part.keywords]
      .filter((field): field is string => field !== undefined)
      .flatMap((field) => wordsOf(field));
    const own = [...strong, ...wordsOf(part.description ?? "")];
    const recordWords = this.#recordTexts(part).flatMap((text) => wordsOf(text, true));
    const starts = (terms: string[], word: string) =>
      terms.some((term) => (word.length === 1 ? term === word : term.startsWith(word)));
    const near = (terms: string[], word: string) =>
      terms.some(
        (term) =>
          term.startsWith(word.slice(0, 4)) || word.startsWith(term.slice(0, 4)) || distance(term, word) <= 2,
      );
    if (words.every((word) => starts(strong, word))) return 0;
    const folded = (word: string) =>
      starts(strong, word) ||
      (singular(word) !== word && !starts(own, word) && starts(strong, singular(word)));
    if (words.every(folded)) return 1;
    const vocabulary = this.vocabularyOf(part);
    const loose = (word: string) =>
      !near(strong, word) &&
      !near(recordWords, word) &&
      !this.#isFamilyWord(word) &&
      starts(vocabulary, word);
    return words.some(loose) ? 2 : undefined;
  }

  /** Ids of the parts the rules allow the query to return. */
  may(query: OracleQuery): Set<string> {
    const near = (vocabulary: string[], word: string) =>
      vocabulary.some(
        (term) =>
          term.startsWith(word.slice(0, 4)) ||
          word.startsWith(term.slice(0, Math.max(4, term.length))) ||
          distance(term, word) <= 2,
      );
    return new Set(
      this.#catalogue.parts
        .filter((part) => this.#passesFilters(part, query))
        .filter((part) => {
          const vocabulary = this.vocabularyOf(part);
          const referencesOne = part.materialId !== undefined || part.processId !== undefined;
          return query.words.every(
            (word) => near(vocabulary, word) || (referencesOne && this.#isFamilyWord(word)),
          );
        })
        .map((part) => part.id),
    );
  }
}
