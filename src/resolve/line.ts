// One pasted line read apart (../shared/spec/decisions.md, "A list, a comparison, a confirmation"):
// the quantity written before or after the part ("2x", "2 x", "qty 4", "4 pcs", a number
// column), a version it names ("Rev B", "version B", "v2"), the code-like words that may be an id,
// a serial id or an external reference, and the words left to search with. Pure text, no lookups.
import { takeVersions } from "../search";

export interface ReadLine {
  /** What remains once the quantity and the version are taken out: the words to search with. */
  text: string;
  quantity?: number;
  /** The version the line names, as written after "Rev", "version" or "v" ("B", "2"). */
  version?: string;
  /** Words with a digit, or an underscore, that may be an id, a serial id or an external reference. */
  codes: string[];
}

const MAX_QUANTITY = 1_000_000_000;
/** Codes of one line looked up exactly, at most: a line names one part. */
const MAX_CODES = 2;

const UNIT = String.raw`(?:x|×|pcs?|pieces?|ea|each|off|units?|nos?)\.?`;
const QTY = String.raw`(?:qty|quantity)\.?\s*[:=]?`;
/** Separators of a number column: a tab, two spaces or more, a semicolon, a bar or a comma. */
const COLUMN = String.raw`(?:\t|\s{2,}|\s*[;|,]\s*)`;

/** Quantities before the part, each with the number as its first group. */
const LEADING = [
  new RegExp(String.raw`^${QTY}\s*(\d+)(?:\s*${UNIT})?${COLUMN}?\s*`, "i"),
  new RegExp(String.raw`^(\d+)\s*${UNIT}(?=\s|$)${COLUMN}?\s*`, "i"),
  new RegExp(String.raw`^(?:x|×)\s*(\d+)${COLUMN}?\s+`, "i"),
  new RegExp(String.raw`^(\d+)${COLUMN}`),
];
/** Quantities after the part ("× 40" after a number is a dimension: "Ø3.5 × 40"). */
const TRAILING = [
  new RegExp(String.raw`${COLUMN}?\s*${QTY}\s*(\d+)(?:\s*${UNIT})?\s*$`, "i"),
  new RegExp(String.raw`(?:^|\s|${COLUMN})(\d+)\s*${UNIT}\s*$`, "i"),
  new RegExp(String.raw`(?<![\d.]\s*)(?:\s|${COLUMN})(?:x|×)\s*(\d+)\s*$`, "i"),
  new RegExp(String.raw`${COLUMN}(\d+)\s*$`),
];
/** A list's own numbering or bullet ("1.", "2)", "-", "•"): not a quantity. */
const BULLET = /^\s*(?:[-*•·]|\d{1,3}[.)])\s+/;
const EDGE_PUNCTUATION = /^[\s,;:|/()[\]-]+|[\s,;:|/()[\]-]+$/g;

/** Reads a pasted line apart; `text` may be empty when the line holds only a quantity. */
export function readLine(line: string): ReadLine {
  let text = line.replace(BULLET, "").trim();
  let quantity: number | undefined;
  for (const patterns of [LEADING, TRAILING]) {
    for (const pattern of patterns) {
      const found = pattern.exec(text);
      if (!found || quantity !== undefined) continue;
      const value = Number(found[1]);
      const rest = text.slice(0, found.index) + text.slice(found.index + found[0].length);
      if (value < 1 || value > MAX_QUANTITY || words(rest).length === 0) continue;
      quantity = value;
      text = rest.trim();
    }
  }
  const { rest: unversioned, versions } = takeVersions(text);
  const version = versions[0];
  text = unversioned.replace(/\s+/g, " ").replace(EDGE_PUNCTUATION, "");
  return {
    text,
    ...(quantity !== undefined && { quantity }),
    ...(version !== undefined && { version: version.toUpperCase() }),
    codes: codesOf(text),
  };
}

/** Words of the line that look like codes: a digit or an underscore in them, four characters or more. */
function codesOf(text: string): string[] {
  const found = text
    .split(/[\s,;|()[\]]+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((word) => word.length >= 4 && /[\d_]/.test(word) && /\p{L}/u.test(word));
  return [...new Set(found)].slice(0, MAX_CODES);
}

/** Runs of letters and digits. */
function words(text: string): string[] {
  return text.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
}
