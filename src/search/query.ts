// A search's arguments as the index reads them: filters as lists of codes, the text as readings of
// stemmed words (filler words left out), and the compiled query, in which each word matches the
// part's own words or the records it references (names, family words, a category's parents).

import type { ReferenceRecords } from "../api/kinds";
import { REFERENCE_KINDS, type ReferenceKind } from "../api/kinds";
import type { PART_VIEWS } from "../api/schemas";
import { categoryEntriesOf, categoryEntryFields, withDescendants } from "./categories";
import { SearchRefusal } from "./errors";
import { type Known, PART_TEXT, SEARCHABLE } from "./kinds";
import { editDistance, rankRecords, type Searchable, stemsOf, typosAllowed, wordMatch } from "./match";
import { type CompiledQuery, FILTER_KINDS, type FilterKind, type QueryWord } from "./part-columns";
import type { PartIndex } from "./part-index";
import { alsoReadAs, tradeGroup } from "./process-names";
import { compact, readings, stem, stems, words } from "./text";
import { isVocabularyWord, STOP_WORDS } from "./vocabulary";
import { MAX_WORD_CHARS } from "./word-index";

type PartView = (typeof PART_VIEWS)[number];

/** Most distinct words of a search text (each is a pass over the index). */
const MAX_TEXT_WORDS = 12;
/** Most codes one filter takes. */
export const MAX_FILTER_CODES = 20;
/** Near words a typo is read as, at most. */
const MAX_TYPO_READINGS = 3;

type FilterArgument = string | readonly string[];

export interface PartSearchArgs {
  text?: string;
  materialId?: FilterArgument;
  processId?: FilterArgument;
  standardId?: FilterArgument;
  criticalityId?: FilterArgument;
  categoryId?: FilterArgument;
  view?: PartView;
  limit?: number;
  cursor?: string;
}

export type Filters = Partial<Record<FilterKind, readonly string[]>>;

export const FILTER_ARGUMENT: Record<FilterKind, keyof PartSearchArgs> = {
  process: "processId",
  material: "materialId",
  standard: "standardId",
  criticality: "criticalityId",
  category: "categoryId",
};

/** The filters as lists of codes, each list without repeats and in order, for the digest. */
export function filtersOf(args: PartSearchArgs): Filters {
  const filters: Filters = {};
  for (const kind of FILTER_KINDS) {
    const given = args[FILTER_ARGUMENT[kind]] as FilterArgument | undefined;
    if (given === undefined) continue;
    const codes = [...new Set(typeof given === "string" ? [given] : given)].sort();
    if (codes.length > MAX_FILTER_CODES) {
      throw new SearchRefusal(`${FILTER_ARGUMENT[kind]} takes at most ${MAX_FILTER_CODES} codes.`);
    }
    if (codes.length > 0) filters[kind] = codes;
  }
  return filters;
}

/** What a search's text asks: readings of stemmed words, the filler words left out, versions named. */
export interface TextQuery {
  readings: string[][];
  /** Filler words of a question ("which", "parts", "needing") left out because other words remain. */
  ignored: string[];
  /** Versions the text names ("Rev B", "revision B", "version 2", "v2"), as written after the word. */
  versions: string[];
  /** Each stem as the text first wrote it ("anodised" for "anodized"), for ranking exact matches first. */
  writtenAs: ReadonlyMap<string, string>;
}

/** "Rev B", "rev. C", "rev: C", "revision B", "version 2", "ver 3": a version name after the word. */
const VERSION_PHRASE =
  /\b(?:rev(?:ision)?|ver(?:sion)?)(?:\.\s*|\s*[:#]\s*|\s+)(\p{L}{1,2}|\p{L}?\p{N}[\p{L}\p{N}.-]{0,8})(?![\p{L}\p{N}])/giu;
/** "v2", "v1.3": a version written as one word. */
const VERSION_WORD = /\bv(\d+(?:\.\d+)*)(?![\p{L}\p{N}])/giu;

/** The versions a text names, as written after the word ("B", "2"), and the text without them. */
export function takeVersions(text: string): { rest: string; versions: string[] } {
  const versions: string[] = [];
  const take = (_: string, name: string) => {
    versions.push(name);
    return " ";
  };
  return { rest: text.replace(VERSION_PHRASE, take).replace(VERSION_WORD, take), versions };
}

/** A version name without a leading "Rev", "version" or "v": "Rev B" is "b". */
const bareVersion = (name: string) =>
  compact(name).replace(/^(revision|rev|version|ver|v)(?=[\p{L}\p{N}])/u, "");

/** Whether a part's version name is one a text names: "B" is "Rev B", "rev-b" and "B". */
export function namesVersion(versionName: string, named: string): boolean {
  const wanted = bareVersion(named);
  return bareVersion(versionName) === wanted || compact(versionName) === wanted;
}

/**
 * The text's readings (as written, then without an edition year) as lists of stemmed words, the
 * versions it names taken out first, with filler words ("parts needing …") left out when others
 * remain. No text: no readings.
 */
export function textReadings(text: string | undefined): TextQuery {
  const { rest, versions } = takeVersions(text?.trim() ?? "");
  const trimmed = rest.trim();
  const ignored = new Set<string>();
  const writtenAs = new Map<string, string>();
  const lists =
    trimmed === ""
      ? []
      : readings(trimmed).map((reading) => {
          // Indexed words are kept to MAX_WORD_CHARS; a longer word of the text is cut the same way.
          const all = [
            ...new Set(
              words(reading).map((written) => {
                const word = stem(written).slice(0, MAX_WORD_CHARS);
                if (!writtenAs.has(word)) writtenAs.set(word, written.slice(0, MAX_WORD_CHARS));
                return word;
              }),
            ),
          ];
          const meaningful = all.filter((word) => !STOP_WORDS.has(word));
          if (meaningful.length === 0) return all;
          for (const word of all) if (STOP_WORDS.has(word)) ignored.add(word);
          return meaningful;
        });
  if (lists.some((list) => list.length > MAX_TEXT_WORDS)) {
    throw new SearchRefusal(
      `The text has more than ${MAX_TEXT_WORDS} words: send the few that a part's title, material, process or category would have.`,
    );
  }
  return {
    readings: lists.filter((list) => list.length > 0),
    ignored: [...ignored],
    versions: [...new Set(versions.map((name) => name.toLowerCase()))],
    writtenAs,
  };
}

/**
 * The text with its filler words that name a known record put back: a filler word is dropped only
 * when it matches nothing, and one that is a record's code or whole name ("Like", a category
 * "Parts") names something. Searching a filler word by prefix ("for" in "formed") would empty
 * searches, so only a record named by it keeps it.
 */
export function keepNamedFillers(text: TextQuery, known: Known): TextQuery {
  const named = text.ignored.filter((word) => namesRecord(word, known));
  if (named.length === 0) return text;
  return {
    ...text,
    readings: text.readings.map((reading) => [...new Set([...reading, ...named])]),
    ignored: text.ignored.filter((word) => !named.includes(word)),
  };
}

/** Whether a stemmed word is the whole code or the whole (one-word) name of a known record. */
function namesRecord(word: string, known: Known): boolean {
  return REFERENCE_KINDS.some((kind) =>
    (known[kind] as ReferenceRecords[ReferenceKind][]).some((record) => {
      const { keys, names } = (SEARCHABLE[kind] as (r: unknown) => Searchable)(record);
      if (keys.some((key) => compact(key) === word)) return true;
      return names.some((name) => {
        const nameStems = stems(name);
        return nameStems.length === 1 && nameStems[0] === word;
      });
    }),
  );
}

/** The version names of the index that a version named in text stands for ("B" is "Rev B", "rev-b", "B"). */
function versionsNamed(named: readonly string[], versionNames: readonly string[]): string[] {
  return versionNames.filter((name) => named.some((wanted) => namesVersion(name, wanted)));
}

/** The query of the words as written against the parts' own text only, and the filters as given. */
export function ownWordsOnly(readingStems: string[][], filters: Filters): CompiledQuery {
  return {
    filters,
    readings: readingStems.map((list) => list.map((word) => ({ prefixes: [word], codes: {} }))),
  };
}

/**
 * The whole query: each word matches the part's own words or a referenced record (its names,
 * family words, a category's parents); a word that matches nothing is read as the nearest known
 * words when it may be a typo (said in `notes`); a category filter takes in its descendants.
 */
export function compileQuery(
  { readings: readingStems, versions, writtenAs }: TextQuery,
  filters: Filters,
  index: PartIndex,
  known: Known,
  notes: string[],
): CompiledQuery {
  const categories = categoryEntriesOf(known.category);
  const expanded: Filters = { ...filters };
  if (filters.category) expanded.category = withDescendants(filters.category, known.category);
  const matching = (word: string): QueryWord["codes"] => {
    const codes: QueryWord["codes"] = {};
    for (const kind of REFERENCE_KINDS) {
      const hits =
        kind === "category"
          ? categories
              .filter((entry) => wordMatch(entry, categoryEntryFields, word) !== undefined)
              .map((entry) => entry.record.id)
          : (known[kind] as ReferenceRecords[ReferenceKind][])
              .filter(
                (record) =>
                  wordMatch(record, PART_TEXT[kind] as (r: unknown) => Searchable, word) !== undefined,
              )
              .map((record) => ("code" in record ? record.code : record.id));
      if (kind === "criticality" || kind === "category") {
        const ids = (known[kind] as { id: string; code?: string }[])
          .filter((record) => hits.includes(record.code ?? record.id))
          .map((record) => record.id);
        if (ids.length > 0) codes[kind] = ids;
      } else if (hits.length > 0) codes[kind] = hits;
    }
    return codes;
  };
  const said = new Set<string>();
  const compileWord = (word: string): QueryWord => {
    const codes = matching(word);
    const processes = tradeNamed(word, known.process);
    if (processes.length > 0) codes.process = [...new Set([...(codes.process ?? []), ...processes])];
    // A word of the vocabulary is what it says: never read as a typo of another ("aluminium" is not "alumina").
    if (
      index.hasWord(word) ||
      Object.keys(codes).length > 0 ||
      typosAllowed(word) === 0 ||
      isVocabularyWord(word)
    ) {
      return { prefixes: inflected(word), codes, written: writtenAs.get(word) ?? word };
    }
    const near = nearWords(word, index, known);
    if (near.length === 0) return { prefixes: inflected(word), codes, written: writtenAs.get(word) ?? word };
    if (!said.has(word))
      notes.push(`"${word}" matched nothing as written and was read as ${near.join(" or ")}.`);
    said.add(word);
    const merged: QueryWord["codes"] = {};
    for (const each of near) {
      for (const [kind, list] of Object.entries(matching(each)) as [FilterKind, string[]][]) {
        merged[kind] = [...new Set([...(merged[kind] ?? []), ...list])];
      }
    }
    return { prefixes: near, codes: merged, typo: true };
  };
  const withVersions: CompiledQuery["filters"] =
    versions.length > 0
      ? { ...expanded, version: versionsNamed(versions, index.codesOf("version")) }
      : expanded;
  return { filters: withVersions, readings: readingStems.map((list) => list.map(compileWord)) };
}

/**
 * A word with the other forms of its verb ("anodized" also as "anodizing", "machining" as
 * "machined"): the stem before -ed (7 letters or more) or -ing (8 or more) as a second prefix.
 */
function inflected(word: string): string[] {
  const base = /^(\p{L}{5,})(ed|ing)$/u.exec(word);
  if (base === null || word.length < (base[2] === "ed" ? 7 : 8)) return [word];
  return [word, base[1] as string];
}

/** A process record's own code and name, without family words. */
const processOwnWords = (record: ReferenceRecords["process"]): Searchable => ({
  keys: [record.code],
  names: [record.name],
});

/**
 * The processes a trade name or abbreviation stands for ("SLM", "DMLS": laser powder bed fusion):
 * those named by the terms it stands for, or that are themselves a trade name of the same process.
 */
function tradeNamed(word: string, processes: readonly ReferenceRecords["process"][]): string[] {
  const group = tradeGroup(word);
  if (group === undefined) return [];
  const terms = alsoReadAs(word);
  return processes
    .filter(
      (record) =>
        tradeGroup(record.code) === group ||
        tradeGroup(record.name) === group ||
        terms.some((term) => rankRecords([record], term, processOwnWords, { typos: false }).length > 0),
    )
    .map((record) => record.code);
}

/** Words of the parts' text and of the known records near a word with a typo, closest first. */
export function nearWords(
  word: string,
  index: PartIndex,
  known: Known,
  limit = typosAllowed(word),
): string[] {
  const near = new Map<string, number>();
  for (const each of index.nearWords(word, limit, MAX_TYPO_READINGS))
    near.set(each, editDistance(word, each, limit));
  for (const kind of REFERENCE_KINDS) {
    const fields = (kind === "category" ? SEARCHABLE.category : PART_TEXT[kind]) as (
      record: unknown,
    ) => Searchable;
    for (const record of known[kind]) {
      for (const term of stemsOf(record, fields)) {
        if (near.has(term) || Math.abs(term.length - word.length) > limit || /\d/.test(term)) continue;
        const distance = editDistance(word, term, limit);
        if (distance <= limit) near.set(term, distance);
      }
    }
  }
  return [...near]
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_TYPO_READINGS)
    .map(([each]) => each);
}
