// The one table of record kinds: for each kind of record the API serves, its collection (the
// plural of API paths and of `parts://` addresses), the field that keys it, the endpoint that
// reads many records at once, and the field of a part that names records of the kind. Everything
// that lists kinds or asks "which field is the key" reads it here.
import type { EndpointName } from "./endpoints";
import type { Category, Criticality, Material, Process, Standard } from "./schemas";

interface KindSpec {
  /** The plural: `parts://<collection>/<key>`. */
  collection: string;
  /** The field a record is known by, in tool arguments, batch answers and resource addresses. */
  key: "code" | "id";
  /** The endpoint that reads many records by their keys, if any. */
  batch?: EndpointName;
  /** The field of a part (and of a create_part draft) that names records of this kind. */
  partField?: string;
}

export const KINDS = {
  process: { collection: "processes", key: "code", partField: "processId" },
  material: { collection: "materials", key: "code", partField: "materialId" },
  standard: {
    collection: "standards",
    key: "code",
    batch: "batchGetStandards",
    partField: "standardIds",
  },
  criticality: {
    collection: "criticalities",
    key: "id",
    batch: "batchGetCriticalities",
    partField: "criticalityIds",
  },
  category: { collection: "categories", key: "id", batch: "batchGetCategories", partField: "categoryIds" },
  part: { collection: "parts", key: "id" },
  rfq: { collection: "rfqs", key: "id" },
  factory: { collection: "factories", key: "id" },
} as const satisfies Record<string, KindSpec>;

/** Every kind of record a tool result can name. */
export type KnownKind = keyof typeof KINDS;

/** The kinds of reference record, in the order a part names them. */
export const REFERENCE_KINDS = ["process", "material", "standard", "criticality", "category"] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

/** The reference kinds read many at a time, by a batch endpoint. */
export type BatchKind = {
  [K in ReferenceKind]: (typeof KINDS)[K] extends { batch: EndpointName } ? K : never;
}[ReferenceKind];

/** The record of each reference kind. */
export interface ReferenceRecords {
  process: Process;
  material: Material;
  standard: Standard;
  criticality: Criticality;
  category: Category;
}

/** The key of a reference record: a standard's code, a category's id… */
export const keyOf = <K extends ReferenceKind>(kind: K, record: ReferenceRecords[K]): string =>
  (record as unknown as Record<string, string>)[KINDS[kind].key] as string;

/** The `parts://` URI of one record: its key is one percent-encoded path segment. */
export const resourceUri = (kind: KnownKind, key: string): string =>
  `parts://${KINDS[kind].collection}/${encodeURIComponent(key)}`;
