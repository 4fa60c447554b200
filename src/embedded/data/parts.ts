// Builds one realistic Part from a family and a seeded generator. The sample data and the large
// catalogue both go through here, so a generated part looks exactly like a sample one.
import type { BoundingBox, CustomFieldSelection, Dimensions, Part } from "../../api/schemas";
import type { Rng } from "../prng";
import { DENSITY, DROPDOWNS, type Dropdown, ORG_BY_KEY, type PartFamily } from "./reference";

export interface PartSpec {
  id: string;
  family: PartFamily;
  title: string;
  serialId: string;
  createdMs: number;
  published: boolean;
  internal: boolean;
  parentId?: string;
  versionName?: string;
}

/** ISO 8601 in UTC, whole seconds: "2024-01-08T08:00:00Z". */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

const DAY_MS = 86_400_000;

const dropdownsByOrg = new Map<string, Dropdown[]>();
for (const d of DROPDOWNS) {
  const list = dropdownsByOrg.get(d.orgId) ?? [];
  list.push(d);
  dropdownsByOrg.set(d.orgId, list);
}

/** The custom-field dropdowns an organisation defines. */
export function dropdownsOf(orgId: string): readonly Dropdown[] {
  return dropdownsByOrg.get(orgId) ?? [];
}

const r2 = (n: number) => Math.round(n * 100) / 100;

function measure(
  rng: Rng,
  family: PartFamily,
  materialId: string | undefined,
): { dimensions: Dimensions; box: BoundingBox } {
  const length = rng.float(family.size[0], family.size[1], 1);
  const d: Dimensions = {};
  let x = length;
  let y: number;
  let z: number;
  let volume: number;
  switch (family.shape) {
    case "prismatic": {
      y = r2(length * rng.float(0.3, 0.8));
      z = r2(length * rng.float(0.15, 0.6));
      Object.assign(d, {
        length,
        width: y,
        height: z,
        wallThickness: rng.float(1.5, 8, 1),
        holeDiameter: rng.pick([4.2, 5.5, 6.6, 8.4, 10.5, 13]),
        filletRadius: rng.float(0.5, 5, 1),
        tolerance: rng.pick([0.02, 0.05, 0.1, 0.2]),
      });
      volume = length * y * z * rng.float(0.08, 0.35);
      d.surfaceArea = r2(2 * (length * y + length * z + y * z) * rng.float(1.2, 2.5));
      break;
    }
    case "turned": {
      const od = r2(Math.min(length, Math.max(3, length * rng.float(0.15, 0.8))));
      y = od;
      z = od;
      Object.assign(d, { length, outerDiameter: od });
      let id = 0;
      if (rng.chance(0.7)) {
        id = r2(od * rng.float(0.3, 0.7));
        d.innerDiameter = id;
      }
      if (rng.chance(0.5)) d.threadSize = rng.pick([3, 4, 5, 6, 8, 10, 12, 16, 20]);
      d.chamferSize = rng.pick([0.2, 0.5, 1]);
      d.tolerance = rng.pick([0.01, 0.02, 0.05]);
      volume = (Math.PI / 4) * (od * od - id * id) * length * rng.float(0.5, 0.9);
      break;
    }
    case "sheet": {
      y = r2(length * rng.float(0.3, 0.9));
      z = rng.float(5, 60, 1);
      const t = rng.pick([0.8, 1, 1.5, 2, 3]);
      Object.assign(d, {
        length,
        width: y,
        height: z,
        wallThickness: t,
        angle: rng.pick([90, 90, 135, 45]),
        radius: r2(t * rng.float(1, 2)),
        holeDiameter: rng.pick([3.2, 4.3, 5.3, 6.4]),
      });
      if (rng.chance(0.5)) d.holeChamferSize = rng.pick([0.3, 0.5]);
      volume = length * y * t * rng.float(0.7, 1);
      break;
    }
    case "lattice": {
      y = r2(length * rng.float(0.6, 1));
      z = r2(length * rng.float(0.4, 1));
      Object.assign(d, { length, width: y, height: z, wallThickness: rng.float(0.3, 1.2) });
      volume = length * y * z * rng.float(0.1, 0.3);
      d.surfaceArea = r2(length * y * z * rng.float(0.8, 2));
      break;
    }
    case "moulded": {
      y = r2(length * rng.float(0.3, 0.9));
      z = r2(length * rng.float(0.1, 0.5));
      Object.assign(d, {
        length,
        width: y,
        height: z,
        wallThickness: rng.float(1.2, 3.5, 1),
        angle: rng.pick([0.5, 1, 1.5, 2]),
        filletRadius: rng.float(0.3, 2, 1),
      });
      volume = length * y * z * rng.float(0.05, 0.2);
      break;
    }
  }
  d.volume = r2(volume);
  const density = materialId === undefined ? undefined : DENSITY[materialId];
  if (density !== undefined) d.weight = r2((volume / 1000) * density);
  x = r2(x);
  return { dimensions: d, box: { x, y, z } };
}

function customFieldsFor(rng: Rng, orgId: string): CustomFieldSelection[] {
  const out: CustomFieldSelection[] = [];
  for (const dropdown of dropdownsOf(orgId)) {
    if (!rng.chance(0.75)) continue;
    const options = dropdown.multiselect ? rng.subset(dropdown.options, 1, 3) : [rng.pick(dropdown.options)];
    out.push({
      dropdownId: dropdown.id,
      dropdownLabel: dropdown.label,
      multiselect: dropdown.multiselect,
      selectedOptions: options,
    });
  }
  return out;
}

function externalRef(rng: Rng, family: PartFamily): string {
  switch (family.org) {
    case "acme":
      return `D${rng.int(50, 57)}-${rng.int(1000, 9999)}-${rng.pick(["501", "502", "503"])}`;
    case "borealis":
      return `SAP-${rng.int(10_000_000, 99_999_999)}`;
    case "cobalt":
      return `CM-${rng.int(100_000, 999_999)}`;
  }
}

/**
 * One Part with every field the specification defines, absent optional values omitted. The
 * record carries the full `customFields`; the API empties them for other organisations.
 */
export function buildPart(rng: Rng, spec: PartSpec): Part {
  const { family } = spec;
  const org = ORG_BY_KEY[family.org];
  const concept = rng.chance(0.05); // an early concept part: no process or material chosen yet
  const processId = concept ? undefined : rng.pick(family.processes);
  const materialId = concept ? undefined : rng.pick(family.materials);
  const part: Part = {
    id: spec.id,
    title: spec.title,
    serialId: spec.serialId,
    ipOwnerId: org.id,
    internal: spec.internal,
    published: spec.published,
    requireSubscription: spec.published && rng.chance(0.25),
    keywords: rng.subset(family.keywords, 2, 4),
    createdTime: isoSeconds(spec.createdMs),
    modifiedTime: isoSeconds(spec.createdMs + rng.int(0, 60) * DAY_MS + rng.int(0, 86_399) * 1000),
    customFields: customFieldsFor(rng, org.id),
  };
  // Insert in the order of the specification's field table.
  const ordered: Record<string, unknown> = { id: part.id };
  if (spec.parentId !== undefined) ordered.parentId = spec.parentId;
  ordered.title = part.title;
  if (spec.versionName !== undefined) ordered.versionName = spec.versionName;
  ordered.serialId = part.serialId;
  ordered.ipOwnerId = part.ipOwnerId;
  ordered.internal = part.internal;
  if (rng.chance(0.7)) ordered.externalRef = externalRef(rng, family);
  if (rng.chance(0.85)) ordered.description = `${family.description}.`;
  ordered.published = part.published;
  ordered.requireSubscription = part.requireSubscription;
  ordered.keywords = part.keywords;
  ordered.createdTime = part.createdTime;
  ordered.modifiedTime = part.modifiedTime;
  if (processId !== undefined) ordered.processId = processId;
  if (materialId !== undefined) ordered.materialId = materialId;
  const standards = rng.subset(family.standards, 1);
  if (!concept) ordered.standardIds = standards;
  const criticalities = rng.subset(family.criticalities, 0);
  if (criticalities.length > 0) ordered.criticalityIds = criticalities;
  ordered.categoryIds = rng.subset(family.categories, 1);
  ordered.unspscCategoryIds = [...family.unspsc];
  const { dimensions, box } = measure(rng, family, materialId);
  if (rng.chance(0.92)) ordered.dimensions = dimensions;
  if (rng.chance(0.92)) ordered.boundingBox = box;
  ordered.customFields = part.customFields;
  return ordered as Part;
}
