// compare_parts: parts side by side (../shared/spec/decisions.md, "A list, a comparison, a
// confirmation"). Every field of the Part is `same`, `different` or `unknown` (some part lacks it:
// a missing value never equals a present one); codes carry their records' names; standards,
// criticalities and categories are what all the parts share plus what each adds; dimensions and
// the bounding box as the API gives them. One read per part, and one per reference record
// through the reference cache.
import { KINDS, keyOf } from "../api/kinds";
import { DIMENSION_NAMES, type Part } from "../api/schemas";
import { type CallOptions, type PartsApiClient, PartsApiError } from "../client";
import type { ReferenceData } from "../data/reference";
import { type PartSearch, SearchRefusal } from "../search";

type Value = string | number | boolean | string[] | null;

interface ComparedField {
  field: string;
  status: "same" | "different" | "unknown";
  values: Value[];
}

export type Shared = {
  common: string[];
  byPart: Record<string, string[]>;
};

export interface Comparison {
  parts: { id: string; title: string; versionName?: string }[];
  fields: ComparedField[];
  standards: Shared;
  criticalities: Shared;
  categories: Shared;
}

interface Services {
  api: PartsApiClient;
  reference: ReferenceData;
  search: PartSearch;
  call: CallOptions;
}

/** Fields compared as they are, in the order of the specification's table. */
const PLAIN_FIELDS = [
  "title",
  "versionName",
  "parentId",
  "serialId",
  "externalRef",
  "ipOwnerId",
  "internal",
  "published",
  "requireSubscription",
  "description",
  "keywords",
  "processId",
  "materialId",
  "unspscCategoryIds",
  "createdTime",
  "modifiedTime",
] as const satisfies readonly (keyof Part)[];
const BOX_AXES = ["x", "y", "z"] as const;

export async function compareParts(ids: readonly string[], services: Services): Promise<Comparison> {
  const parts = await Promise.all(ids.map((id) => readPart(id, services)));
  const names = await recordNames(parts, services);
  const named = (kind: string) => (code: Value) =>
    typeof code === "string" && names.has(`${kind}:${code}`)
      ? `${code} (${names.get(`${kind}:${code}`)})`
      : code;
  const fields: ComparedField[] = [];
  for (const field of PLAIN_FIELDS) {
    const label =
      field === "processId" ? named("process") : field === "materialId" ? named("material") : undefined;
    push(
      fields,
      field,
      parts.map((part) => fieldValue(part[field])),
      label,
    );
  }
  for (const name of DIMENSION_NAMES)
    push(
      fields,
      `dimensions.${name}`,
      parts.map((part) => fieldValue(part.dimensions?.[name])),
    );
  for (const axis of BOX_AXES)
    push(
      fields,
      `boundingBox.${axis}`,
      parts.map((part) => fieldValue(part.boundingBox?.[axis])),
    );
  push(
    fields,
    "customFields",
    parts.map((part) => (part.customFields.length > 0 ? customFieldsText(part) : null)),
  );
  return {
    parts: parts.map(({ id, title, versionName }) =>
      versionName === undefined ? { id, title } : { id, title, versionName },
    ),
    fields,
    standards: shared(parts, (part) => part.standardIds, named("standard")),
    criticalities: shared(parts, (part) => part.criticalityIds, named("criticality")),
    categories: shared(parts, (part) => part.categoryIds, named("category")),
  };
}

/** Adds a field unless no part has it: `unknown` when some part lacks it, else `same` or `different`. */
function push(fields: ComparedField[], field: string, raw: Value[], label?: (value: Value) => Value): void {
  if (raw.every((value) => value === null)) return;
  const keys = raw.map((value) => JSON.stringify(value));
  const status = raw.includes(null) ? "unknown" : keys.every((key) => key === keys[0]) ? "same" : "different";
  fields.push({ field, status, values: label ? raw.map(label) : raw });
}

function fieldValue(value: unknown): Value {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.length === 0 ? null : [...value].map(String).sort();
  return value as Value;
}

/** "Material grade: 5; Finish: anodised, passivated" (labels and option labels, which the API gives). */
function customFieldsText(part: Part): string {
  return part.customFields
    .map(
      (field) => `${field.dropdownLabel}: ${field.selectedOptions.map((option) => option.label).join(", ")}`,
    )
    .join("; ");
}

/** What every part has, and what each part has beyond that, named. */
function shared(
  parts: readonly Part[],
  of: (part: Part) => string[] | undefined,
  label: (code: Value) => Value,
): Shared {
  const lists = parts.map((part) => [...new Set(of(part) ?? [])]);
  const common = (lists[0] ?? []).filter((code) => lists.every((list) => list.includes(code)));
  const byPart = Object.fromEntries(
    parts.map((part, p) => [
      part.id,
      (lists[p] ?? []).filter((code) => !common.includes(code)).map((code) => String(label(code))),
    ]),
  );
  return { common: common.map((code) => String(label(code))), byPart };
}

/** The part; a refusal that names the closest known ids when the API does not know it. */
async function readPart(id: string, { api, search, call }: Services): Promise<Part> {
  try {
    return await api.call("getPart", { params: { id } }, call);
  } catch (error) {
    if (!(error instanceof PartsApiError) || error.status !== 404) throw error;
    const hint = await search.suggest("part", id, call);
    throw new SearchRefusal(
      `No part has id "${id}"${hint ? `; ${hint}` : "."} Find part ids with search_parts or resolve_parts.`,
    );
  }
}

/**
 * The names of every record the parts name, by `kind:code`, each record read once (the reference
 * cache shares them with every other tool). A record that cannot be read keeps its code alone.
 */
async function recordNames(
  parts: readonly Part[],
  { reference, call }: Services,
): Promise<Map<string, string>> {
  const distinct = (of: (part: Part) => (string | undefined)[] | undefined) => [
    ...new Set(parts.flatMap((part) => of(part) ?? []).filter((code): code is string => code !== undefined)),
  ];
  const names = new Map<string, string>();
  const quietly = async (read: () => Promise<void>) => {
    try {
      await read();
    } catch (error) {
      if (call.signal?.aborted) throw error;
    }
  };
  await Promise.all([
    ...(["process", "material"] as const).flatMap((kind) =>
      distinct((part) => [part[KINDS[kind].partField]]).map((code) =>
        quietly(async () => void names.set(`${kind}:${code}`, (await reference[kind](code, call)).name)),
      ),
    ),
    ...(["standard", "criticality", "category"] as const).map((kind) =>
      quietly(async () => {
        const { items } = await reference.batch(
          kind,
          distinct((part) => part[KINDS[kind].partField]),
          call,
        );
        for (const item of items) names.set(`${kind}:${keyOf(kind, item)}`, item.name);
      }),
    ),
  ]);
  return names;
}
