// How text is compared, the same way everywhere a user's fragment meets a record: case, accents,
// spacing and punctuation do not count, and a trailing edition year (`ASTM F3001-14`,
// `ISO 13485:2016`) may be dropped, because engineers write codes in all of these ways. Words are
// also folded (`stem`): plural and singular, British and American spellings, so that "brackets",
// "mouldings" and "aluminium" meet "bracket", "molding" and "aluminum".
const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
const NOT_ALPHANUMERIC = /[^\p{L}\p{N}]+/gu;
/** A letter run next to a digit run: `f3001` is `f` and `3001`, `6al` is `6` and `al`. */
const LETTER_DIGIT_RUNS = /\p{L}+|\p{N}+/gu;
/** `-14`, `:2016` at the end: an edition year. A single digit (`ISO 2768-1`) is a part number. */
const EDITION_YEAR = /[-:]\s*(?:\d{2}|(?:19|20)\d{2})\s*$/;

/** Lower case without accents (`Querétaro` → `queretaro`). */
export function fold(text: string): string {
  // Plain ASCII (most codes and ids) has no accents to take apart.
  if (!NOT_ASCII.test(text)) return text.toLowerCase();
  return text.normalize("NFKD").replace(MARKS, "").toLowerCase();
}
const NOT_ASCII = /[^\u0020-\u007e]/;

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

/** British spellings (and a few older ones) as the American ones they fold to, wherever they stand in a word. */
const SPELLINGS: readonly (readonly [string, string])[] = [
  ["aluminium", "aluminum"],
  ["sulphur", "sulfur"],
  ["orthopaed", "orthoped"],
  ["paediatr", "pediatr"],
  ["haemo", "hemo"],
  ["anaesthe", "anesthe"],
  ["oesophag", "esophag"],
  ["manoeuvr", "maneuver"],
  ["programme", "program"],
  ["catalogue", "catalog"],
  ["draught", "draft"],
  ["jewellery", "jewelry"],
  ["defence", "defense"],
  ["licence", "license"],
  ["grey", "gray"],
  ["mould", "mold"],
  ["tyre", "tire"],
];
/** Words spelt -our in Britain and -or in America, by their start: `colours`, `vapour`. */
const OUR_WORDS = /^(col|behavi|vap|flav|arm|harb|hon|lab|neighb|fav|od|rig|hum|tum|sav|vig)our/;
/** -ise/-yse verbs and their forms (anodised, analysing, organisation): -ize/-yze. */
const ISE = /^(.{3,}?)([iy])s(e|ed|es|er|ers|ing|ation|ations)$/;
/** -tre/-bre nouns (fibre, centre, calibre): -ter/-ber. */
const TRE = /^(.{2,}[tb])re(s?)$/;
/** A doubled l before a suffix (modelling, labelled, travelled): one l. */
const ELL = /^(.{2,}e)ll(ing|ed|er|ers)$/;

/**
 * A folded word's common form, so that the forms people write meet: the singular of a plural
 * ("assemblies" → "assembly", "boxes" → "box", "brackets" → "bracket") and the American spelling
 * ("moulding" → "molding", "anodised" → "anodized", "fibre" → "fiber", "modelling" → "modeling").
 * Words with a digit (codes) and words of three letters or fewer are left as they are. Both sides of
 * a comparison are folded the same way, so a form that is not a real word does no harm.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let form = stemmed.get(word);
  if (form === undefined) {
    if (stemmed.size >= MAX_STEMMED) stemmed.clear();
    form = stemOf(word);
    stemmed.set(word, form);
  }
  return form;
}

/**
 * Stems already worked out: an index stems every word of every part it reads, and a catalogue
 * repeats its words (one pass of stemOf costs several times the split into words). At most
 * MAX_STEMMED are kept (under 1 MiB), then they start again.
 */
const stemmed = new Map<string, string>();
const MAX_STEMMED = 10_000;

function stemOf(word: string): string {
  let form = word;
  for (const [british, american] of SPELLINGS) {
    if (form.includes(british)) form = form.replace(british, american);
  }
  form = form.replace(OUR_WORDS, "$1or").replace(ELL, "$1l$2").replace(TRE, "$1er$2").replace(ISE, "$1$2z$3");
  if (form.length <= 4) return form;
  if (form.endsWith("ies")) return `${form.slice(0, -3)}y`;
  if (/(ch|sh|ss|x|z)es$/.test(form)) return form.slice(0, -2);
  if (form.endsWith("s") && !/(ss|us|is)$/.test(form)) return form.slice(0, -1);
  return form;
}

/** The words of a text, folded and stemmed. */
export function stems(text: string): string[] {
  return words(text).map(stem);
}
