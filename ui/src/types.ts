// The shapes of the tool results the views draw (`structuredContent`). Records, reference kinds, a
// part's resolved records and the results of resolve_parts and compare_parts come from src/ (types
// only: nothing of them is bundled); the other tool envelopes are restated here from
// tools/parts.ts, tools/rfqs.ts, tools/preview.ts and decisions.md.
import type { ReferenceKind } from "../../src/api/kinds";
import type { BoundingBox, Dimensions, Part, Rfq } from "../../src/api/schemas";
import type { Comparison, Shared } from "../../src/compare/compare";
import type { ResolvedRecords as Resolved } from "../../src/data/reference";
import type { ResolvedList } from "../../src/resolve/list";
import type { FoundPart as NamedPart } from "../../src/resolve/match";

export type {
  BoundingBox,
  Comparison,
  Dimensions,
  NamedPart,
  Part,
  ReferenceKind,
  Resolved,
  ResolvedList,
  Rfq,
  Shared,
};

/** describe_part */
export interface DescribedPart extends Resolved {
  part: Part;
  unresolved?: { kind: ReferenceKind; id: string; reason: string }[];
}

/** One item of search_parts. */
export interface PartSummary {
  id: string;
  title: string;
  versionName?: string;
  serialId?: string;
  processId?: string;
  materialId?: string;
  standardIds?: string[];
  published?: boolean;
  /** How the part matched beyond its own words: a referenced record, or "category …" / "description only" (loose). */
  matched?: string;
}

/** search_parts */
export interface SearchResult {
  items: PartSummary[];
  scanned: number;
  complete: boolean;
  nextCursor?: string;
  /** How the text was read (a typo), or why nothing matched. */
  hint?: string;
}

/** preview_part */
export interface DraftPreview extends Resolved {
  draft: Record<string, unknown>;
  /** Each with the search module's hint naming the closest known records, when one is close. */
  unknown: { kind: ReferenceKind; id: string; didYouMean?: string }[];
  unchecked?: { kind: ReferenceKind; id: string; reason: string }[];
}

/** create_part */
export interface CreatedPart {
  id: string;
  partUrl: string;
}

export type ResolvedLine = ResolvedList["items"][number];

export type ViewName = "part" | "search" | "rfq" | "draft" | "resolve" | "compare";
