// Matching a fragment to reference records (processes, materials, standards, criticalities,
// categories) and to part ids, best match first, as engineers write them: "F3001", "astm f3001",
// "ASTM F3001-14", "AMS4928", "SAE AMS 4928" (the governing body before the code), "ISO
// 13485:2016". The same ranking names the closest records in did-you-mean hints.
import { alsoReadAs } from "./process-names";
import { compact, readings, termsOf, words } from "./text";

/** What of a record a fragment is compared with. */
export interface Searchable {
  /** Codes and ids: compared whole (`ams4928`), from the start, and as a part (`f3001`). */
  keys: readonly string[];
  names: readonly string[];
  /** A prefix that may be written before a key: a standard's governing body. */
  qualifiers?: readonly string[];
}

const EXACT_KEY = 100;
const EXACT_NAME = 90;
const KEY_PREFIX = 80;
const NAME_PREFIX = 70;
const KEY_PART = 60;
const ALL_WORDS = 40;
/** A key containing a shorter fragment than this is no evidence (`e` is in most codes). */
const MIN_KEY_PART = 3;

/** A record's fields as matching compares them, folded once: keys (also behind each qualifier), names, terms. */
interface Folded {
  keys: string[];
  names: string[];
  terms: string[];
}

function foldRecord(record: Searchable): Folded {
  const qualifiers = (record.qualifiers ?? []).map(compact);
  return {
    keys: record.keys.flatMap((key) => {
      const bare = compact(key);
      return [bare, ...qualifiers.map((qualifier) => qualifier + bare)];
    }),
    names: record.names.map(compact),
    terms: [...record.keys, ...record.names, ...(record.qualifiers ?? [])].flatMap(termsOf),
  };
}

/** Folded forms per `fields` function and record, so that records kept in a cache fold once. */
const foldings = new WeakMap<object, WeakMap<object, Folded>>();

function folder<T>(fields: (record: T) => Searchable): (record: T) => Folded {
  const known = foldings.get(fields) ?? new WeakMap<object, Folded>();
  foldings.set(fields, known);
  return (record) => {
    if (typeof record !== "object" || record === null) return foldRecord(fields(record));
    const kept = known.get(record);
    if (kept) return kept;
    const folded = foldRecord(fields(record));
    known.set(record, folded);
    return folded;
  };
}

/** One reading of a fragment, folded once for every record it is compared with. */
interface Query {
  compact: string;
  words: string[];
}

const queryOf = (reading: string): Query => ({ compact: compact(reading), words: words(reading) });

/** How well one reading of a fragment matches a record: 0 when it does not. */
function score(record: Folded, query: Query): number {
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
  if (best < ALL_WORDS && query.words.length > 0) {
    if (query.words.every((word) => record.terms.some((term) => term.startsWith(word)))) best = ALL_WORDS;
  }
  return best;
}

/**
 * Words this long may carry one typo ("inconnel", "aluminum"), and from TWO_TYPOS letters on two;
 * a word with a digit none: "F3002" is another standard than F3001, not a typo of it.
 */
const ONE_TYPO = 5;
const TWO_TYPOS = 9;
const typosAllowed = (word: string) =>
  /\d/.test(word) ? 0 : word.length >= TWO_TYPOS ? 2 : word.length >= ONE_TYPO ? 1 : 0;

/**
 * How far a reading is from matching every word of a record, allowing typos in its longer words:
 * the sum of the words' distances to their nearest terms, or undefined when a word is too far.
 */
function typoDistance(record: Folded, query: Query): number | undefined {
  let total = 0;
  for (const word of query.words) {
    const limit = typosAllowed(word);
    let nearest = limit + 1;
    for (const term of record.terms) {
      nearest = Math.min(nearest, term.startsWith(word) ? 0 : editDistance(word, term, limit));
      if (nearest === 0) break;
    }
    if (nearest > limit) return undefined;
    total += nearest;
  }
  return total;
}

/**
 * The records that match `text`, best first (ties: the shorter key, then alphabetical); every
 * record, by key, when there is no text. The text is read as written, then without a trailing
 * edition year, then as the terms a process's trade name stands for ("SLM": laser powder bed
 * fusion, process-names.ts), and the first reading that matches anything wins. When none does,
 * `typos` (the default) allows a typo or two in longer words of the text, closest first.
 */
export function rankRecords<T>(
  records: readonly T[],
  text: string | undefined,
  fields: (record: T) => Searchable,
  { typos = true }: { typos?: boolean } = {},
): T[] {
  const folded = folder(fields);
  const keyOf = (record: T) => folded(record).keys[0] ?? "";
  const byKey = (a: T, b: T) => keyOf(a).length - keyOf(b).length || (keyOf(a) < keyOf(b) ? -1 : 1);
  if (text === undefined || words(text).length === 0)
    return [...records].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  for (const reading of [...readings(text), ...alsoReadAs(text)]) {
    const query = queryOf(reading);
    const scored = records
      .map((record) => ({ record, score: score(folded(record), query) }))
      .filter((entry) => entry.score > 0);
    if (scored.length > 0) {
      return scored
        .sort((a, b) => b.score - a.score || byKey(a.record, b.record))
        .map((entry) => entry.record);
    }
  }
  if (!typos) return [];
  for (const reading of readings(text)) {
    const query = queryOf(reading);
    const near = records
      .map((record) => ({ record, distance: typoDistance(folded(record), query) }))
      .filter((entry): entry is { record: T; distance: number } => entry.distance !== undefined);
    if (near.length > 0) {
      return near
        .sort((a, b) => a.distance - b.distance || byKey(a.record, b.record))
        .map((entry) => entry.record);
    }
  }
  return [];
}

/** A record a did-you-mean hint may name: its key and, in brackets, its label. */
export interface Candidate extends Searchable {
  label?: string;
}

const MAX_SUGGESTIONS = 3;
const MAX_LABEL = 60;

/**
 * `did you mean pa12 (Polyamide 12 (PA12))?`: the closest candidates to an unknown code or id, by
 * the ranking above, or else by edit distance (typos); undefined when none is close.
 */
export function didYouMean(unknown: string, candidates: readonly Candidate[]): string | undefined {
  let closest = rankRecords(candidates, unknown, (candidate) => candidate);
  if (closest.length === 0) {
    const target = compact(unknown);
    const limit = target.length < 4 ? 1 : target.length < 9 ? 2 : 3;
    closest = candidates
      .map((candidate) => ({
        candidate,
        distance: editDistance(target, compact(candidate.keys[0] ?? ""), limit),
      }))
      .filter((entry) => entry.distance <= limit)
      .sort((a, b) => a.distance - b.distance)
      .map((entry) => entry.candidate);
  }
  const named = closest
    .filter((candidate) => candidate.keys[0] !== unknown)
    .slice(0, MAX_SUGGESTIONS)
    .map((candidate) => withLabel(candidate.keys[0] ?? "", candidate.label));
  if (named.length === 0) return undefined;
  const list = named.length === 1 ? named[0] : `${named.slice(0, -1).join(", ")} or ${named.at(-1)}`;
  return `did you mean ${list}?`;
}

/** A record as a hint names it: `pa12 (Polyamide 12 (PA12))`, a long name cut short. */
export function withLabel(key: string, label: string | undefined): string {
  if (label === undefined || label === key) return key;
  return `${key} (${label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label})`;
}

/** Optimal string alignment distance (a swap of neighbours costs 1), or more than `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (before[j - 2] as number) + 1);
      }
      current[j] = value;
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}
