// Matching a fragment to reference records (processes, materials, standards, criticalities,
// categories) and to part ids, best match first, as engineers write them: "F3001", "astm f3001",
// "ASTM F3001-14", "AMS4928", "SAE AMS 4928" (the governing body before the code), "ISO
// 13485:2016". The same ranking names the closest records in did-you-mean hints.
import { alsoReadAs } from "./process-names";
import { compact, readings, stem, termsOf, words } from "./text";

/** What of a record a fragment is compared with. */
export interface Searchable {
  /** Codes and ids: compared whole (`ams4928`), from the start, and as a part (`f3001`). */
  keys: readonly string[];
  names: readonly string[];
  /** A prefix that may be written before a key: a standard's governing body. */
  qualifiers?: readonly string[];
  /** Family words of the manufacturing vocabulary ("titanium" for Ti-6Al-4V): matched after its own words. */
  families?: readonly string[];
}

const EXACT_KEY = 100;
const EXACT_NAME = 90;
const KEY_PREFIX = 80;
const NAME_PREFIX = 70;
const KEY_PART = 60;
const ALL_WORDS = 40;
/** Every word matches once plural and singular, British and American spellings are folded. */
const ALL_STEMS = 30;
/** Every word matches, some only a family word ("titanium" for Ti-6Al-4V). */
const WITH_FAMILY = 20;
/** A key containing a shorter fragment than this is no evidence (`e` is in most codes). */
const MIN_KEY_PART = 3;

/** A record's fields as matching compares them, folded once: keys (also behind each qualifier), names, terms. */
interface Folded {
  keys: string[];
  names: string[];
  terms: string[];
  stems: string[];
  families: { word: string; stems: string[] }[];
}

function foldRecord(record: Searchable): Folded {
  const qualifiers = (record.qualifiers ?? []).map(compact);
  const terms = [...record.keys, ...record.names, ...(record.qualifiers ?? [])].flatMap(termsOf);
  return {
    keys: record.keys.flatMap((key) => {
      const bare = compact(key);
      return [bare, ...qualifiers.map((qualifier) => qualifier + bare)];
    }),
    names: record.names.map(compact),
    terms,
    stems: [...new Set(terms.map(stem))],
    families: (record.families ?? []).map((word) => ({ word, stems: words(word).map(stem) })),
  };
}

/** Folded forms per `fields` function and record, so that records kept in a cache fold once. */
const foldings = new WeakMap<object, { objects: WeakMap<object, Folded>; strings: Map<string, Folded> }>();
/** Folded strings (completion candidates) kept per `fields` function, at most. */
const MAX_FOLDED_STRINGS = 50_000;

function folder<T>(fields: (record: T) => Searchable): (record: T) => Folded {
  let known = foldings.get(fields);
  if (known === undefined) {
    known = { objects: new WeakMap(), strings: new Map() };
    foldings.set(fields, known);
  }
  const { objects, strings } = known;
  return (record) => {
    if (typeof record === "string") {
      let kept = strings.get(record);
      if (kept === undefined) {
        if (strings.size >= MAX_FOLDED_STRINGS) strings.clear();
        kept = foldRecord(fields(record));
        strings.set(record, kept);
      }
      return kept;
    }
    if (typeof record !== "object" || record === null) return foldRecord(fields(record));
    const kept = objects.get(record);
    if (kept) return kept;
    const folded = foldRecord(fields(record));
    objects.set(record, folded);
    return folded;
  };
}

/** One reading of a fragment, folded once for every record it is compared with. */
interface Query {
  compact: string;
  words: string[];
  stems: string[];
}

const queryOf = (reading: string): Query => {
  const written = [...new Set(words(reading))];
  return { compact: compact(reading), words: written, stems: [...new Set(written.map(stem))] };
};

/** Whether a term starts with a word; a lone letter or digit only as a whole term. */
const startsOne = (terms: readonly string[], word: string) =>
  word.length === 1 ? terms.includes(word) : terms.some((term) => term.startsWith(word));

/** How well one reading of a fragment matches a record: 0 when it does not. */
function score(record: Folded, query: Query, families = true): number {
  if (query.compact === "") return 0;
  let best = 0;
  for (const form of record.keys) {
    if (form === query.compact) return EXACT_KEY;
    if (form.startsWith(query.compact)) best = Math.max(best, KEY_PREFIX);
    else if (query.compact.length >= MIN_KEY_PART && form.includes(query.compact))
      best = Math.max(best, KEY_PART);
  }
  for (const form of record.names) {
    if (form === query.compact) best = Math.max(best, EXACT_NAME);
    else if (form.startsWith(query.compact)) best = Math.max(best, NAME_PREFIX);
  }
  if (best >= ALL_WORDS || query.words.length === 0) return best;
  if (query.words.every((word) => startsOne(record.terms, word))) return ALL_WORDS;
  if (query.stems.every((word) => startsOne(record.stems, word))) return ALL_STEMS;
  const family = (word: string) => record.families.some(({ stems }) => startsOne(stems, word));
  if (
    families &&
    record.families.length > 0 &&
    query.stems.every((word) => startsOne(record.stems, word) || family(word))
  )
    return WITH_FAMILY;
  return 0;
}

/**
 * Whether one stemmed word of a text matches a record: by its code or names (`{}`), only by a
 * family word (`{ family }`), or not at all (undefined).
 */
export function wordMatch<T>(
  record: T,
  fields: (record: T) => Searchable,
  word: string,
): { family?: string } | undefined {
  const folded = folder(fields)(record);
  if (startsOne(folded.stems, word)) return {};
  const family = folded.families.find(({ stems }) => startsOne(stems, word));
  return family ? { family: family.word } : undefined;
}

/** The stems a record is matched by, its family words' included: the vocabulary a typo is compared with. */
export function stemsOf<T>(record: T, fields: (record: T) => Searchable): string[] {
  const folded = folder(fields)(record);
  return [...folded.stems, ...folded.families.flatMap(({ stems }) => stems)];
}

/**
 * Words this long may carry one typo ("inconnel", "aluminum"), and from TWO_TYPOS letters on two;
 * a word with a digit none: "F3002" is another standard than F3001, not a typo of it.
 */
const ONE_TYPO = 5;
const TWO_TYPOS = 9;
export const typosAllowed = (word: string) =>
  /\d/.test(word) ? 0 : word.length >= TWO_TYPOS ? 2 : word.length >= ONE_TYPO ? 1 : 0;

/**
 * How far a reading is from matching every word of a record, allowing typos in its longer words:
 * the sum of the words' distances to their nearest terms, or undefined when a word is too far.
 */
function typoDistance(record: Folded, query: Query): number | undefined {
  let total = 0;
  for (const word of query.stems) {
    const limit = typosAllowed(word);
    let nearest = limit + 1;
    for (const term of record.stems) {
      nearest = Math.min(nearest, term.startsWith(word) ? 0 : editDistance(word, term, limit));
      if (nearest === 0) break;
    }
    if (nearest > limit) return undefined;
    total += nearest;
  }
  return total;
}

/**
 * The longest fragment compared with records: longer than any code or name a record has, so a
 * longer one matches nothing, and the work a fragment costs is bounded whatever is sent.
 */
const MAX_FRAGMENT_CHARS = 200;
/** Distinct words of a fragment that the typo pass compares (each word costs a pass over every term). */
const MAX_TYPO_WORDS = 8;

/**
 * The records that match `text`, best first (ties: the shorter key, then alphabetical); every
 * record, by key, when there is no text. The text is read as written, then without a trailing
 * edition year, then as the terms a process's trade name stands for ("SLM": laser powder bed
 * fusion, process-names.ts), and the first reading that matches anything wins; within it, words
 * as written rank above folded ones (plural, spelling), and those above family words. When none
 * does, `typos` (the default) allows a typo or two in longer words of the text, closest first.
 * Each record is folded once per call (and once while it is cached), so the cost is one pass.
 */
export function rankRecords<T>(
  records: readonly T[],
  text: string | undefined,
  fields: (record: T) => Searchable,
  { typos = true }: { typos?: boolean } = {},
): T[] {
  if (text !== undefined && text.length > MAX_FRAGMENT_CHARS) return [];
  const folded = folder(fields);
  const entries = records.map((record) => ({ record, folded: folded(record), rank: 0 }));
  const keyOf = (entry: (typeof entries)[number]) => entry.folded.keys[0] ?? "";
  const byKey = (a: (typeof entries)[number], b: (typeof entries)[number]) =>
    keyOf(a).length - keyOf(b).length || (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);
  if (text === undefined || words(text).length === 0)
    return entries.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1)).map((entry) => entry.record);
  const asWritten = readings(text);
  for (const [r, reading] of [...asWritten, ...alsoReadAs(text)].entries()) {
    const query = queryOf(reading);
    // What a trade name stands for is matched by the records' own words only: SLM is laser powder
    // bed fusion, not every process of the powder-bed family (polymer sintering among them).
    for (const entry of entries) entry.rank = score(entry.folded, query, r < asWritten.length);
    const scored = entries.filter((entry) => entry.rank > 0);
    if (scored.length > 0) return scored.sort((a, b) => b.rank - a.rank || byKey(a, b)).map((e) => e.record);
  }
  if (!typos) return [];
  for (const reading of readings(text)) {
    const query = queryOf(reading);
    if (query.stems.length > MAX_TYPO_WORDS) return [];
    for (const entry of entries) entry.rank = typoDistance(entry.folded, query) ?? -1;
    const near = entries.filter((entry) => entry.rank >= 0);
    if (near.length > 0) return near.sort((a, b) => a.rank - b.rank || byKey(a, b)).map((e) => e.record);
  }
  return [];
}

/** A record a did-you-mean hint may name: its key and, in brackets, its label. */
export interface Candidate extends Searchable {
  label?: string;
}

const MAX_SUGGESTIONS = 3;
const asSearchable = (candidate: Candidate): Searchable => candidate;
const MAX_LABEL = 60;

/**
 * `did you mean pa12 (Polyamide 12 (PA12))?`: the closest candidates to an unknown code or id, by
 * the ranking above, or else by edit distance (typos); undefined when none is close.
 */
export function didYouMean(unknown: string, candidates: readonly Candidate[]): string | undefined {
  let closest = rankRecords(candidates, unknown, asSearchable);
  if (closest.length === 0 && unknown.length <= MAX_FRAGMENT_CHARS) {
    const keyOf = folder(asSearchable);
    closest = nearestKeys(unknown, candidates, (candidate) => keyOf(candidate).keys[0] ?? "");
  }
  return suggestion(unknown, closest);
}

/**
 * `did you mean prt_axae90esyp (Engine mount bracket)?` for an id among many (part ids): the ids
 * that start with it, it starts with, or that are a few characters away; one pass with a cheap
 * test per id, whose compact form the caller keeps (`compactKey`).
 */
export function didYouMeanId(
  unknown: string,
  candidates: readonly (Candidate & { compactKey: string })[],
): string | undefined {
  if (unknown.length > MAX_FRAGMENT_CHARS) return undefined;
  return suggestion(
    unknown,
    nearestKeys(unknown, candidates, (candidate) => candidate.compactKey),
  );
}

function nearestKeys<T>(unknown: string, candidates: readonly T[], keyOf: (candidate: T) => string): T[] {
  const target = compact(unknown);
  if (target === "") return [];
  const limit = target.length < 4 ? 1 : target.length < 9 ? 2 : 3;
  const near: { candidate: T; distance: number }[] = [];
  for (const candidate of candidates) {
    const key = keyOf(candidate);
    const distance =
      key.startsWith(target) || (key.length >= MIN_KEY_PART && target.startsWith(key))
        ? 0
        : editDistance(target, key, limit);
    if (distance <= limit) near.push({ candidate, distance });
  }
  return near.sort((a, b) => a.distance - b.distance).map((entry) => entry.candidate);
}

function suggestion(unknown: string, closest: readonly Candidate[]): string | undefined {
  const named = closest
    .filter((candidate) => candidate.keys[0] !== unknown)
    .slice(0, MAX_SUGGESTIONS)
    .map((candidate) => withLabel(candidate.keys[0] ?? "", candidate.label));
  if (named.length === 0) return undefined;
  const list = named.length === 1 ? named[0] : `${named.slice(0, -1).join(", ")} or ${named.at(-1)}`;
  return `did you mean ${list}?`;
}

/** A record as a hint names it: `pa12 (Polyamide 12 (PA12))`, a long name cut short. */
function withLabel(key: string, label: string | undefined): string {
  if (label === undefined || label === key) return key;
  return `${key} (${label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label})`;
}

/**
 * The candidates whose code is `text` once case, spacing, punctuation, a qualifier written before
 * it ("SAE AMS4928") and an edition year after it ("ASTM F3001-14") are folded.
 */
export function sameCode(candidates: readonly Candidate[], text: string): string[] {
  if (text.length > MAX_FRAGMENT_CHARS) return [];
  const wanted = new Set(readings(text).map(compact));
  const folded = folder(asSearchable);
  return candidates
    .filter((candidate) => folded(candidate).keys.some((key) => wanted.has(key)))
    .map((candidate) => candidate.keys[0] as string);
}

/** Optimal string alignment distance (a swap of neighbours costs 1), or more than `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (b.length + 1 > (rows[0] as Int32Array).length)
    for (let r = 0; r < 3; r++) rows[r] = new Int32Array(2 * (b.length + 1));
  // Three rows reused from call to call: this runs once per word of a vocabulary.
  let [before, previous, current] = rows as [Int32Array, Int32Array, Int32Array];
  const far = limit + 1;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    // Only cells within `limit` of the diagonal can stay within `limit`: the others count as far.
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    current[0] = i;
    if (from > 1) current[from - 1] = far;
    let rowMin = from === 1 ? i : far;
    for (let j = from; j <= to; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(
        j < i + limit ? (previous[j] as number) + 1 : far,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        value = Math.min(value, (before[j - 2] as number) + 1);
      }
      current[j] = Math.min(value, far);
      rowMin = Math.min(rowMin, current[j] as number);
    }
    if (to < b.length) current[to + 1] = far;
    if (rowMin > limit) return far;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length] as number, far);
}

const rows: Int32Array[] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];
