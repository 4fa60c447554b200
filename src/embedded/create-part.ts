// What a create-part request becomes in the embedded API: every reference checked against the
// reference data (a 400 names the field and the value), custom fields resolved against the
// organisation's own dropdowns and their options, the record built in the API's field order, and
// the body's fields the record does not show kept aside as extras. The store gives the new part
// its id, serial and time, and files it.
import type { CreatePartBody, CustomFieldSelection, Part } from "../api/schemas";
import { dropdownsOf } from "./data/parts";
import type { Dropdown } from "./data/reference";
import { ApiError, quote } from "./errors";

/** Create-body fields that the Part record does not carry: kept with the part, as an API would. */
export type CreateExtras = Omit<
  CreatePartBody,
  | "title"
  | "externalRef"
  | "description"
  | "requireSubscription"
  | "materialId"
  | "processId"
  | "standardIds"
  | "criticalityIds"
  | "categoryIds"
  | "unspscCategoryIds"
  | "keywords"
  | "internal"
  | "boundingBox"
  | "customFields"
>;

/** The reference records a create may name, by code or id. */
export interface KnownReferences {
  processes: ReadonlyMap<string, unknown>;
  materials: ReadonlyMap<string, unknown>;
  standards: ReadonlyMap<string, unknown>;
  criticalities: ReadonlyMap<string, unknown>;
  categories: ReadonlyMap<string, unknown>;
}

/** A create body's references, checked: the lists without repeats, custom fields resolved. */
export interface CheckedReferences {
  standardIds: string[] | undefined;
  criticalityIds: string[] | undefined;
  categoryIds: string[] | undefined;
  customFields: CustomFieldSelection[];
}

/** What the store gives a new part. */
export interface PartStamp {
  id: string;
  serialId: string;
  /** Creation and modification time, ISO 8601. */
  now: string;
}

/**
 * Checks every reference of a create body: each must exist (400 naming the field and the value),
 * custom fields must use the organisation's own dropdowns and their options.
 */
export function checkReferences(
  orgId: string,
  body: CreatePartBody,
  json: KnownReferences,
): CheckedReferences {
  const known = (field: string, value: string, map: ReadonlyMap<string, unknown>, what: string) => {
    if (!map.has(value)) throw new ApiError(400, `${field}: unknown ${what} ${quote(value)}`);
  };
  if (body.processId !== undefined) known("processId", body.processId, json.processes, "process");
  if (body.materialId !== undefined) known("materialId", body.materialId, json.materials, "material");
  const refs = (
    field: "standardIds" | "criticalityIds" | "categoryIds",
    map: ReadonlyMap<string, unknown>,
    what: string,
  ) => {
    const values = body[field];
    if (values === undefined) return undefined;
    values.forEach((v, i) => {
      known(`${field}[${i}]`, v, map, what);
    });
    return [...new Set(values)];
  };
  const standardIds = refs("standardIds", json.standards, "standard");
  const criticalityIds = refs("criticalityIds", json.criticalities, "criticality");
  const categoryIds = refs("categoryIds", json.categories, "category");
  const customFields = resolveCustomFields(orgId, body.customFields ?? []);
  return { standardIds, criticalityIds, categoryIds, customFields };
}

/**
 * The record of a created part. A new part is a draft: unpublished, so only its organisation
 * sees it until published (which no operation of the API does).
 */
export function createdPart(
  orgId: string,
  body: CreatePartBody,
  checked: CheckedReferences,
  stamp: PartStamp,
): Part {
  const { standardIds, criticalityIds, categoryIds, customFields } = checked;
  const { id, now } = stamp;
  const part: Record<string, unknown> = {
    id,
    title: body.title,
    serialId: stamp.serialId,
    ipOwnerId: orgId,
    internal: body.internal ?? false,
  };
  if (body.externalRef !== undefined) part.externalRef = body.externalRef;
  if (body.description !== undefined) part.description = body.description;
  part.published = false;
  part.requireSubscription = body.requireSubscription ?? false;
  part.keywords = body.keywords ?? [];
  part.createdTime = now;
  part.modifiedTime = now;
  if (body.processId !== undefined) part.processId = body.processId;
  if (body.materialId !== undefined) part.materialId = body.materialId;
  if (standardIds !== undefined) part.standardIds = standardIds;
  if (criticalityIds !== undefined) part.criticalityIds = criticalityIds;
  if (categoryIds !== undefined) part.categoryIds = categoryIds;
  if (body.unspscCategoryIds !== undefined) part.unspscCategoryIds = body.unspscCategoryIds;
  if (body.boundingBox !== undefined) part.boundingBox = body.boundingBox;
  part.customFields = customFields;
  return part as Part;
}

/** The create-body fields the record does not carry, or undefined when there are none. */
export function extrasOf(body: CreatePartBody): CreateExtras | undefined {
  const {
    title: _t,
    externalRef: _e,
    description: _d,
    requireSubscription: _r,
    materialId: _m,
    processId: _p,
    standardIds: _s,
    criticalityIds: _c,
    categoryIds: _g,
    unspscCategoryIds: _u,
    keywords: _k,
    internal: _i,
    boundingBox: _b,
    customFields: _f,
    ...extras
  } = body;
  return Object.keys(extras).length > 0 ? extras : undefined;
}

/** Custom fields named by dropdown and option ids, resolved to the records a part shows. */
function resolveCustomFields(
  orgId: string,
  selections: NonNullable<CreatePartBody["customFields"]>,
): CustomFieldSelection[] {
  const own = new Map<string, Dropdown>(dropdownsOf(orgId).map((d) => [d.id, d]));
  const seen = new Set<string>();
  return selections.map((selection, i) => {
    const field = `customFields[${i}]`;
    const dropdown = own.get(selection.dropdownId);
    if (dropdown === undefined) {
      throw new ApiError(
        400,
        `${field}.dropdownId: unknown dropdown ${quote(selection.dropdownId)} for organisation ${orgId}`,
      );
    }
    if (seen.has(dropdown.id))
      throw new ApiError(400, `${field}.dropdownId: duplicate dropdown ${quote(dropdown.id)}`);
    seen.add(dropdown.id);
    const optionIds = [...new Set(selection.selectedOptionIds)];
    if (!dropdown.multiselect && optionIds.length > 1) {
      throw new ApiError(400, `${field}.selectedOptionIds: dropdown ${quote(dropdown.id)} allows one option`);
    }
    const options = optionIds.map((optionId, k) => {
      const option = dropdown.options.find((o) => o.id === optionId);
      if (option === undefined) {
        throw new ApiError(
          400,
          `${field}.selectedOptionIds[${k}]: unknown option ${quote(optionId)} of dropdown ${quote(dropdown.id)}`,
        );
      }
      return option;
    });
    return {
      dropdownId: dropdown.id,
      dropdownLabel: dropdown.label,
      multiselect: dropdown.multiselect,
      selectedOptions: options,
    };
  });
}
