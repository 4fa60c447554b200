// How each part of an answer met its query, for the order of a whole answer (decisions.md,
// "Finding things, third round"): matches through the part's own title, keywords or referenced
// records before those only through a category name or the description; within each, words
// written exactly as the text wrote them before folded forms ("anodised" / "anodized"), folded
// before typos. Worked out at query time for the answer's parts only, from the index's word forms.
import {
  type CompiledQuery,
  FILTER_KINDS,
  type FilterKind,
  type Match,
  type QueryWord,
} from "./part-columns";
import type { WordForms } from "./word-forms";
import type { WordIndex } from "./word-index";

const EXACT = 0;
const FOLDED = 1;
const TYPO = 2;

export interface MatchRank {
  /** The weakest way a word matched: EXACT, FOLDED or TYPO. */
  quality: number;
  /** Set when some word matched only through a category name or only through the description. */
  loose?: "category" | "description";
}

/** Whether a word matched a part through a referenced record other than its categories. */
function recordBesidesCategory(word: QueryWord, references: Record<FilterKind, string[]>): boolean {
  return FILTER_KINDS.some(
    (kind) => kind !== "category" && references[kind].some((code) => word.codes[kind]?.includes(code)),
  );
}

export function rankMatches(
  words: WordIndex,
  forms: WordForms,
  query: CompiledQuery,
  found: readonly Match[],
  referencesOf: (position: number) => Record<FilterKind, string[]>,
): MatchRank[] {
  if (found.length === 0) return [];
  const among = new Set(found.map((match) => match.position));
  // Positions per word, looked up once for every part of the answer that needs them.
  const sets = new Map<QueryWord, { strong: Set<number>; exact?: Set<number> }>();
  const setsOf = (word: QueryWord) => {
    let kept = sets.get(word);
    if (kept === undefined) {
      kept = {
        strong: forms.strongAmong(word.prefixes, words, among),
        ...(!word.typo && {
          exact: forms.exactAmong(word.written ?? (word.prefixes[0] as string), words, among),
        }),
      };
      sets.set(word, kept);
    }
    return kept;
  };
  return found.map((match) => {
    const reading = query.readings[match.reading] ?? [];
    const rank: MatchRank = { quality: EXACT };
    let references: Record<FilterKind, string[]> | undefined;
    const referencesHere = () => {
      references ??= referencesOf(match.position);
      return references;
    };
    reading.forEach((word, w) => {
      if (word.typo) rank.quality = TYPO;
      if ((match.viaReference & (1 << w)) !== 0) {
        if (rank.loose === undefined && !recordBesidesCategory(word, referencesHere()))
          rank.loose = "category";
        return;
      }
      const { strong, exact } = setsOf(word);
      if (exact !== undefined && !exact.has(match.position)) rank.quality = Math.max(rank.quality, FOLDED);
      if (
        !strong.has(match.position) &&
        rank.loose === undefined &&
        !recordBesidesCategory(word, referencesHere())
      )
        rank.loose = "description";
    });
    return rank;
  });
}

/** The order of a whole answer: strong before loose, then exact, folded, typo, then listing order. */
export function rankedOrder(ranks: readonly MatchRank[]): number[] {
  return ranks
    .map((rank, i) => ({ i, key: (rank.loose === undefined ? 0 : 3) + rank.quality }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map(({ i }) => i);
}
