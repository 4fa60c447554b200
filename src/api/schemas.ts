// The records of the Parts and Sourcing Reference API (../shared/spec/parts-api.md) as zod
// schemas. One source of truth: the embedded API validates with them and publishes its OpenAPI
// document from them, the client parses responses with them, the tools declare them as output.
// Objects are not strict: a field the API adds later is tolerated (and dropped), never an error.
import { z } from "zod";
import { isLoopbackHost } from "../net/hosts";

export const RFQ_STATES = [
  "DRAFT",
  "ONGOING",
  "RESPONDED",
  "REVIEW",
  "UNFULFILLED",
  "SUCCESSFUL",
  "QUOTE_RECEIVED",
] as const;
export const MATERIAL_TYPES = ["metal", "polymer", "ceramic", "composite", "sand", "wax", "other"] as const;
const UNIT_SYSTEMS = ["METRIC", "IMPERIAL"] as const;
export const PART_VIEWS = ["CONSUMER", "IP_OWNER"] as const;

const RfqState = z.enum(RFQ_STATES);
export const MaterialType = z.enum(MATERIAL_TYPES);
const UnitSystem = z.enum(UNIT_SYSTEMS);
export const PartView = z.enum(PART_VIEWS);

/** RFC 3339, as OpenAPI's `format: date-time` means it: an offset or Z is required. */
const DateTime = z.iso.datetime({ offset: true });

/**
 * The `override` for every z.toJSONSchema call: it drops what zod writes that says nothing a
 * reader needs and costs a model tokens, such as the 400-character regex beside `format: date-time`.
 */
export function jsonSchemaOverride(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const schema = ctx.jsonSchema;
  if (ctx.zodSchema === DateTime) delete schema.pattern;
  // Every z.int() carries the safe-integer bounds, which say nothing a reader needs.
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  // A record's `propertyNames: {type: "string"}` says what every JSON key already is.
  const names = schema.propertyNames as Record<string, unknown> | undefined;
  if (names?.type === "string" && Object.keys(names).length === 1) delete schema.propertyNames;
}

export const DIMENSION_NAMES = [
  "angle",
  "depth",
  "width",
  "height",
  "length",
  "radius",
  "volume",
  "weight",
  "tolerance",
  "threadSize",
  "chamferSize",
  "surfaceArea",
  "filletRadius",
  "holeDiameter",
  "innerDiameter",
  "outerDiameter",
  "wallThickness",
  "holeChamferSize",
] as const;

export const Dimensions = z.object(
  Object.fromEntries(DIMENSION_NAMES.map((name) => [name, z.number().optional()])) as Record<
    (typeof DIMENSION_NAMES)[number],
    z.ZodOptional<z.ZodNumber>
  >,
);

export const BoundingBox = z.object({
  x: z.number().optional(),
  y: z.number().optional(),
  z: z.number().optional(),
});

export const CustomFieldOption = z.object({ id: z.string(), label: z.string(), value: z.string() });

export const CustomFieldSelection = z.object({
  dropdownId: z.string(),
  dropdownLabel: z.string(),
  multiselect: z.boolean(),
  selectedOptions: z.array(CustomFieldOption),
});

export const Part = z.object({
  id: z.string(),
  parentId: z.string().optional().describe("Set when this part is a version of another"),
  title: z.string(),
  versionName: z.string().optional(),
  serialId: z.string(),
  ipOwnerId: z.string().describe("Organisation owning the IP"),
  internal: z.boolean(),
  externalRef: z.string().optional(),
  description: z.string().optional(),
  published: z.boolean(),
  requireSubscription: z.boolean(),
  keywords: z.array(z.string()),
  createdTime: DateTime,
  modifiedTime: DateTime,
  processId: z.string().optional(),
  materialId: z.string().optional(),
  standardIds: z.array(z.string()).optional(),
  criticalityIds: z.array(z.string()).optional(),
  categoryIds: z.array(z.string()).optional(),
  unspscCategoryIds: z.array(z.string()).optional(),
  dimensions: Dimensions.optional(),
  boundingBox: BoundingBox.optional(),
  customFields: z.array(CustomFieldSelection).describe("Empty unless your organisation owns the part"),
});

// Which fields of these records are required is not shown by the specification: we require the
// identifying fields and the name, and accept the rest as optional (docs/decisions.md).
export const Criticality = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  governingBody: z.string().optional(),
});

export const Standard = z.object({
  code: z.string(),
  name: z.string(),
  governingBody: z.string().optional(),
  materialType: z.string().optional(),
});

export const Category = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  parentId: z.string().optional().describe("Absent for a top-level category"),
});

export const Process = z.object({ code: z.string(), name: z.string(), materialType: z.string().optional() });

export const Material = z.object({ code: z.string(), name: z.string(), type: z.string().optional() });

export const Factory = z.object({ id: z.string(), name: z.string(), orgId: z.string().optional() });

export const Rfq = z.object({
  id: z.string(),
  state: RfqState,
  partId: z.string(),
  quantity: z.number().optional(),
  maxLeadTime: z.number().optional().describe("Maximum lead time in days"),
  deadlineTime: DateTime.optional(),
  expireTime: DateTime.optional(),
});

const nonEmpty = z.string().min(1);

/** Keys that name an object's machinery: in JSON they are data, but code that copies them into a
 * plain object can change its prototype instead (and zod's record drops `__proto__` silently). */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Free string key-value pairs. The keys are checked on the input as sent (before zod's record,
 * which would drop `__proto__` without a word), so a reserved key is refused by name.
 */
const StringMap = z.preprocess(
  (value, ctx) => {
    if (typeof value !== "object" || value === null) return value;
    for (const key of Object.keys(value).filter((k) => RESERVED_KEYS.has(k))) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `${JSON.stringify(key)} is not allowed as a key (nor are "__proto__", "constructor" and "prototype"): rename it`,
        input: value,
      });
    }
    return value;
  },
  z.record(z.string(), z.string()),
);

/**
 * The address of a file to import (decisions: "Import Part File"): an absolute https: URL, http:
 * only for a loopback host (the embedded API serves test files there), never with a user name or
 * password. Its query string, the SAS credential, is never part of a message.
 */
export const SasUrl = z
  .url({ protocol: /^https?$/, error: "must be an absolute https: URL" })
  .max(4096)
  .superRefine((value, ctx) => {
    const problem = sasUrlProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem, input: "" });
  });

function sasUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined; // the url check above says so
  }
  if (url.username !== "" || url.password !== "") {
    return "must not contain a user name or password (user:pass@): a SAS URL carries its credential in its query string only";
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return "must be an https: URL (http: is accepted only for a loopback host such as 127.0.0.1)";
  }
  return undefined;
}

/** One dropdown's selection in a part to create. */
export const CustomFieldChoice = z.object({ dropdownId: nonEmpty, selectedOptionIds: z.array(nonEmpty) });

export const CreatePartBody = z.object({
  title: nonEmpty,
  externalRef: z.string().optional(),
  description: z.string().optional(),
  requireSubscription: z.boolean().optional(),
  materialId: nonEmpty.optional(),
  processId: nonEmpty.optional(),
  materialNote: z.string().optional(),
  processNote: z.string().optional(),
  standardIds: z.array(nonEmpty).optional(),
  criticalityIds: z.array(nonEmpty).optional(),
  categoryIds: z.array(nonEmpty).optional(),
  unspscCategoryIds: z.array(nonEmpty).optional(),
  keywords: z.array(z.string()).optional(),
  internal: z.boolean().optional(),
  rapidManufacturingMaterial: z.string().optional(),
  exemptionsNotes: z.string().optional(),
  documentationRequirementNotes: z.string().optional(),
  otherRequirementNotes: z.string().optional(),
  descriptionManufacturer: z.string().optional(),
  businessUnitIds: z.array(nonEmpty).optional(),
  boundingBox: BoundingBox.optional(),
  metadata: StringMap.optional(),
  customFields: z.array(CustomFieldChoice).optional(),
  materialType: MaterialType.optional(),
  unitSystem: UnitSystem.optional(),
});

export const CreatePartResult = z.object({ id: z.string(), partUrl: z.string() });

export const ImportFileBody = z.object({ name: nonEmpty, sasUrl: SasUrl });
export const ImportFileResult = z.object({ fileId: z.string() });

export const PartList = z.object({ items: z.array(Part), hasMore: z.boolean() });

export const itemsOf = <T extends z.ZodType>(record: T) => z.object({ items: z.array(record) });

export const ApiErrorBody = z.object({
  status: z.number().int(),
  message: z.string(),
  code: z.string().optional(),
});

export type Part = z.infer<typeof Part>;
export type Dimensions = z.infer<typeof Dimensions>;
export type BoundingBox = z.infer<typeof BoundingBox>;
export type CustomFieldSelection = z.infer<typeof CustomFieldSelection>;
export type CustomFieldOption = z.infer<typeof CustomFieldOption>;
export type Criticality = z.infer<typeof Criticality>;
export type Standard = z.infer<typeof Standard>;
export type Category = z.infer<typeof Category>;
export type Process = z.infer<typeof Process>;
export type Material = z.infer<typeof Material>;
export type Factory = z.infer<typeof Factory>;
export type Rfq = z.infer<typeof Rfq>;
export type CreatePartBody = z.infer<typeof CreatePartBody>;
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;
