// The shapes of the tool results the views draw (`structuredContent`). Records, reference kinds and
// a part's resolved records come from src/api/ and src/data/reference.ts (types only: nothing of
// them is bundled); the tool envelopes are restated here from tools/parts.ts, tools/rfqs.ts,
// tools/preview.ts, src/resolve/, src/compare/ and decisions.md.
import type { ReferenceKind } from "../../src/api/kinds";
import type { BoundingBox, Dimensions, Part, Rfq } from "../../src/api/schemas";
import type { ResolvedRecords as Resolved } from "../../src/data/reference";

export type { BoundingBox, Dimensions, Part, ReferenceKind, Resolved, Rfq };

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

/** A part as resolve_parts names it. */
export interface NamedPart {
  id: string;
  title: string;
  versionName?: string;
  serialId?: string;
}

/** One line of resolve_parts (src/resolve/list.ts). */
export interface ResolvedLine {
  line: string;
  quantity?: number;
  status: "match" | "ambiguous" | "none";
  part?: NamedPart;
  matchedBy?: string;
  confidence: number;
  alternatives?: NamedPart[];
  why?: string;
}

/** resolve_parts */
export interface ResolvedList {
  items: ResolvedLine[];
  complete: boolean;
  cursor?: string;
  hint?: string;
}

type FieldValue = string | number | boolean | string[] | null;

/** What the compared parts share of a list of codes, and what each adds (names beside codes). */
export interface Shared {
  common: string[];
  byPart: Record<string, string[]>;
}

/** compare_parts (src/compare/compare.ts) */
export interface Comparison {
  parts: NamedPart[];
  fields: { field: string; status: "same" | "different" | "unknown"; values: FieldValue[] }[];
  standards: Shared;
  criticalities: Shared;
  categories: Shared;
}

export type ViewName = "part" | "search" | "rfq" | "draft" | "resolve" | "compare";
