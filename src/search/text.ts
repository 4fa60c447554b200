// How text is compared, the same way everywhere a user's fragment meets a record: case, accents,
// spacing and punctuation do not count, and a trailing edition year (`ASTM F3001-14`,
// `ISO 13485:2016`) may be dropped, because engineers write codes in all of these ways.
const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
const NOT_ALPHANUMERIC = /[^\p{L}\p{N}]+/gu;
/** A letter run next to a digit run: `f3001` is `f` and `3001`, `6al` is `6` and `al`. */
const LETTER_DIGIT_RUNS = /\p{L}+|\p{N}+/gu;
/** `-14`, `:2016` at the end: an edition year. A single digit (`ISO 2768-1`) is a part number. */
const EDITION_YEAR = /[-:]\s*(?:\d{2}|(?:19|20)\d{2})\s*$/;

/** Lower case without accents (`Querétaro` → `queretaro`). */
function fold(text: string): string {
  return text.normalize("NFKD").replace(MARKS, "").toLowerCase();
}

/** The words of a text, folded: runs of letters and digits. */
export function words(text: string): string[] {
  return fold(text)
    .split(SEPARATORS)
    .filter((word) => word.length > 0);
}

/** A text folded with everything but letters and digits removed: `ASTM E8/E8M` → `astme8e8m`. */
export function compact(text: string): string {
  return fold(text).replace(NOT_ALPHANUMERIC, "");
}

/** The words of a record's field, with the letter and digit runs inside each (`f3001`, `f`, `3001`). */
export function termsOf(text: string): string[] {
  const terms = new Set<string>();
  for (const word of words(text)) {
    terms.add(word);
    const runs = word.match(LETTER_DIGIT_RUNS);
    if (runs && runs.length > 1) for (const run of runs) terms.add(run);
  }
  return [...terms];
}

/**
 * The ways a query may be read: as written, then without a trailing edition year. A reader tries
 * them in order and keeps the first that matches anything, so a code that really ends in two
 * digits still matches exactly.
 */
export function readings(text: string): string[] {
  const stripped = text.replace(EDITION_YEAR, "");
  return stripped !== text && words(stripped).length > 0 ? [text, stripped] : [text];
}
