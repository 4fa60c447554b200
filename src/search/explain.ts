// What an answer says about how it was found: the record through which a word matched a part
// (`matched`), and why a search found nothing, so that an empty answer is never taken for
// "there are none".
import type { Category } from "../api/schemas";
import { ancestry, categoryOwnName } from "./categories";
import { type Known, PART_TEXT } from "./kinds";
import { editDistance, type Searchable, typosAllowed, wordMatch } from "./match";
import { type CompiledQuery, FILTER_KINDS, type FilterKind, type QueryWord } from "./part-columns";
import type { PartIndex } from "./part-index";
import { FILTER_ARGUMENT, type Filters, nearWords, type PartSearchArgs, type TextQuery } from "./query";
import { compact, termsOf } from "./text";

/** The order in which an item's `matched` names the records that matched. */
const LABEL_ORDER = ["material", "process", "category", "criticality", "standard"] as const;

/** `material Ti-6Al-4V (Grade 5) (titanium)`: the record of a part through which a word matched. */
export function referenceLabel(
  word: QueryWord,
  references: Record<FilterKind, string[]>,
  known: Known,
): string | undefined {
  for (const kind of LABEL_ORDER) {
    const code = references[kind].find((each) => word.codes[kind]?.includes(each));
    if (code === undefined) continue;
    const record = (known[kind] as { code?: string; id?: string; name: string }[]).find(
      (each) => (kind === "criticality" || kind === "category" ? each.id : each.code) === code,
    );
    if (record === undefined) return `${kind} ${code}`;
    if (kind === "category") {
      const byId = new Map(known.category.map((category) => [category.id, category]));
      const chain = ancestry(record as Category, byId);
      const through = chain.find((each) =>
        word.prefixes.some((prefix) => wordMatch(each, categoryOwnName, prefix)),
      );
      return through === undefined || through === record
        ? `category ${record.name}`
        : `category ${record.name} (in ${through.name})`;
    }
    const fields = (PART_TEXT as Record<string, (record: unknown) => Searchable>)[kind] as (
      r: unknown,
    ) => Searchable;
    const family = word.prefixes.map((prefix) => wordMatch(record, fields, prefix)?.family).find(Boolean);
    return family ? `${kind} ${record.name} (${family})` : `${kind} ${record.name}`;
  }
  return undefined;
}

/**
 * Why a search found nothing, so that an empty answer is never taken for "there are none": the
 * words that match no part nor record (with the closest known words), the filters no part has,
 * or, when each matches parts on its own, that no part matches all together.
 */
export function whyNothing(
  args: PartSearchArgs,
  text: TextQuery,
  query: CompiledQuery,
  filters: Filters,
  index: PartIndex,
  from: number,
  to: number,
  complete: boolean,
  known: Known,
): string {
  if (complete && from > 0) return "No further part matches: the search is complete.";
  const scope = complete
    ? "no part"
    : `no part of the ${index.partsBefore(to) - index.partsBefore(from)} examined`;
  const count = (part: CompiledQuery) => index.matches(part, from, to, Number.POSITIVE_INFINITY).found.length;
  const reasons: string[] = [];
  if (text.versions.length > 0 && (query.filters.version ?? []).length === 0) {
    const seen = index.codesOf("version").slice(0, 8);
    reasons.push(
      `version ${text.versions.map((name) => JSON.stringify(name)).join(", ")} is no part's versionName${seen.length > 0 ? ` (versions seen: ${seen.join(", ")})` : ""}`,
    );
  }
  const reading = query.readings[0] ?? [];
  for (const word of reading) {
    if (word.prefixes.some((prefix) => index.hasWord(prefix)) || Object.keys(word.codes).length > 0) continue;
    const near = nearWords(
      word.prefixes[0] as string,
      index,
      known,
      Math.min(3, typosAllowed(word.prefixes[0] as string) + 1),
    );
    const codes = nearCodes(word.prefixes[0] as string, known);
    reasons.push(
      `"${word.prefixes[0]}" is in no part's text nor in the name of any material, process, category, standard or criticality${codes.length > 0 ? ` (one character from ${codes.join(", ")}: did you mean that?)` : near.length > 0 ? ` (closest known words: ${near.join(", ")})` : ""}`,
    );
  }
  if (reasons.length > 0) return said(reasons, args, complete);
  const byFilter = FILTER_KINDS.filter((kind) => filters[kind]).map((kind) => ({
    kind,
    parts: count({ filters: { [kind]: query.filters[kind] }, readings: [] }),
  }));
  for (const { kind, parts } of byFilter) {
    if (parts === 0)
      reasons.push(`${FILTER_ARGUMENT[kind]} ${(filters[kind] ?? []).join(", ")}: ${scope} has it`);
  }
  const withText =
    reading.length > 0 && reasons.length === 0 ? count({ filters: {}, readings: query.readings }) : undefined;
  if (withText === 0) {
    const alone = reading.map(
      (word, w) => `"${word.prefixes[0]}" ${count({ filters: {}, readings: [[reading[w] as QueryWord]] })}`,
    );
    reasons.push(
      `each word matches parts, but ${scope} matches every word (parts per word: ${alone.join(", ")})`,
    );
  }
  if (reasons.length === 0) {
    const parts = [
      ...(withText === undefined ? [] : [`the text matches ${withText} parts`]),
      ...byFilter.map(({ kind, parts }) => `${FILTER_ARGUMENT[kind]} ${parts}`),
    ];
    reasons.push(`${parts.join(", ")}, but ${scope} matches them all together`);
  }
  return said(reasons, args, complete);
}

function said(reasons: string[], args: PartSearchArgs, complete: boolean): string {
  const more = complete
    ? "complete means every part was examined."
    : "More parts remain: continue with nextCursor.";
  const widen = args.text === undefined ? "" : " Drop a word or a filter to widen the search.";
  return `Nothing found: ${reasons.join("; ")}.${widen} ${more}`;
}

/** How long a code-like word must be before a code one edit from it is named. */
const MIN_NEAR_CODE_CHARS = 4;

/** Known record codes one character from a code-like word of the text ("in719" → IN718 (Inconel 718)), at most three. */
function nearCodes(word: string, known: Known): string[] {
  // One edit turns any short word into another ("m6" into the "mg" of AlSi10Mg): too short to name.
  if (!/\d/.test(word) || word.length < MIN_NEAR_CODE_CHARS) return [];
  const found: string[] = [];
  for (const kind of ["material", "process", "standard", "criticality"] as const) {
    for (const record of known[kind] as { code: string; name: string }[]) {
      const terms = [compact(record.code), ...termsOf(record.code)].filter(
        (term) => term.length >= MIN_NEAR_CODE_CHARS,
      );
      if (terms.some((term) => term !== word && editDistance(word, term, 1) <= 1)) {
        found.push(`${kind} ${record.code} (${record.name})`);
        if (found.length === 3) return found;
      }
    }
  }
  return found;
}
