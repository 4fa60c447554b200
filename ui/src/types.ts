// The shapes of the tool results the views draw (`structuredContent`). Records come from the API
// schemas (types only: nothing of them is bundled); the tool envelopes are restated here from
// tools/parts.ts, tools/rfqs.ts, tools/preview.ts and decisions.md ("Finding things").
import type {
  BoundingBox,
  Category,
  Criticality,
  Dimensions,
  Material,
  Part,
  Process,
  Rfq,
  Standard,
} from "../../src/api/schemas";

export type { BoundingBox, Dimensions, Part, Rfq };

export type ReferenceKind = "process" | "material" | "standard" | "criticality" | "category";

/** The reference records of a part or a draft, resolved. */
export interface Resolved {
  process?: Process;
  material?: Material;
  standards: Standard[];
  criticalities: Criticality[];
  categories: Category[];
}

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
  /** The referenced record that matched words the part's own text lacks. */
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

export type ViewName = "part" | "search" | "rfq" | "draft";
