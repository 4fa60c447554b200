// The state of the embedded API: reference data, parts (sample, generated, created), RFQs and
// imported files, with the visibility rules and the paging indexes.
//
// Visibility (who may see a part): its IP owner's organisation always; any other organisation
// only when the part is published and not internal. A part a caller may not see answers 404,
// exactly like an unknown id, so its existence does not leak.
//
// Order of every list: creation time, then id. Generated parts (2019-2021) come before the
// sample parts (2024), and created parts are stamped "now", never earlier than the newest part,
// so appending keeps the order. Each organisation has three index arrays of positions (owned,
// consumer, all visible), so a page is one slice whatever its number.
import type {
  Category,
  CreatePartBody,
  Criticality,
  CustomFieldSelection,
  Factory,
  Material,
  Part,
  Process,
  Rfq,
  Standard,
} from "../api/schemas";
import { LargeCatalogue } from "./data/large";
import { dropdownsOf } from "./data/parts";
import {
  CATEGORIES,
  CRITICALITIES,
  DROPDOWNS,
  type Dropdown,
  FACTORIES,
  MATERIALS,
  ORGS,
  type Org,
  PROCESSES,
  STANDARDS,
} from "./data/reference";
import { generateRfqs, generateSampleParts } from "./data/sample";
import { ApiError, quote } from "./errors";
import { Rng } from "./prng";

export type { Dropdown, Org };
export type PartView = "IP_OWNER" | "CONSUMER";

/** Create-body fields that the Part record does not carry; kept so tests can inspect them. */
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

export interface ImportedFile {
  fileId: string;
  partId: string;
  /** Organisation that attached the file. */
  orgId: string;
  name: string;
  /** The file's address without its query string (a SAS query string is a credential). */
  location: string;
  createdTime: string;
}

interface Entry {
  part: Part;
  /** The part as its owner sees it, serialised on first use. */
  ownerJson?: string;
  /** The part as other organisations see it (customFields empty). */
  publicJson?: string;
  extras?: CreateExtras;
}

interface OrgIndex {
  owned: number[];
  consumer: number[];
  all: number[];
}

export interface StoreOptions {
  /** Number of generated parts added before the sample data (0: none). */
  largeCatalogueSize?: number;
}

const EMPTY_PUBLIC_FIELDS: CustomFieldSelection[] = [];

/** The visibility rule: may organisations other than the IP owner see a part? */
export function visibleToOthers(published: boolean, internal: boolean): boolean {
  return published && !internal;
}
/** Serialised generated parts kept (oldest evicted first): about 1 KB each. */
const GENERATED_JSON_CACHE_MAX = 20_000;
const ID_SEED = 0x1d5eed;

/** Serialises a record once and keeps the string, for reference data served as is. */
function jsonMap<T>(list: readonly T[], key: (r: T) => string): Map<string, { record: T; json: string }> {
  return new Map(list.map((r) => [key(r), { record: r, json: JSON.stringify(r) }]));
}

function records<T>(map: ReadonlyMap<string, { record: T }>): T[] {
  return [...map.values()].map((v) => v.record);
}

export class Store {
  readonly orgs: readonly Org[] = ORGS;
  readonly dropdowns: readonly Dropdown[] = DROPDOWNS;
  /** Number of generated parts (0 without the large catalogue). */
  readonly largeCatalogueSize: number;

  /** Serialised reference records, served without a stringify per request. */
  readonly json = {
    processes: jsonMap(PROCESSES, (p) => p.code),
    materials: jsonMap(MATERIALS, (m) => m.code),
    standards: jsonMap(STANDARDS, (s) => s.code),
    criticalities: jsonMap(CRITICALITIES, (c) => c.id),
    categories: jsonMap(CATEGORIES, (c) => c.id),
    factories: jsonMap(FACTORIES, (f) => f.id),
  };

  private readonly tokens = new Map<string, Org>(ORGS.map((o) => [o.token, o]));
  private readonly orgIndex = new Map<string, number>(ORGS.map((o, i) => [o.id, i]));
  private readonly large: LargeCatalogue | undefined;
  /** Sample then created parts, in creation order; position = largeCatalogueSize + index. */
  private readonly small: Entry[] = [];
  private readonly byId = new Map<string, Entry>();
  private readonly indexes: OrgIndex[];
  private readonly rfqsById: Map<string, { record: Rfq; json: string }>;
  private readonly rfqsByPart = new Map<string, Rfq[]>();
  private readonly files: ImportedFile[] = [];
  private readonly ids = new Rng(ID_SEED);
  private readonly createdIds: string[] = [];
  private lastCreatedMs = 0;
  private createdSerial = 0;
  private largeTitles: Map<string, number> | undefined;
  /** JSON of generated parts by position × 2 + (1 for the owner's variant). */
  private readonly generatedJson = new Map<number, string>();
  private readonly smallTitles = new Map<string, number>();

  constructor(options: StoreOptions = {}) {
    this.largeCatalogueSize = Math.max(0, Math.floor(options.largeCatalogueSize ?? 0));
    this.large = this.largeCatalogueSize > 0 ? new LargeCatalogue(this.largeCatalogueSize) : undefined;
    this.indexes = ORGS.map(() => ({ owned: [], consumer: [], all: [] }));

    const large = this.large;
    if (large !== undefined) {
      const orgCount = ORGS.length;
      for (let i = 0; i < large.size; i++) {
        const owner = large.ownerIndex(i);
        const isPublic = visibleToOthers(large.published(i), large.internal(i));
        for (let o = 0; o < orgCount; o++) {
          const index = this.indexes[o] as OrgIndex;
          if (o === owner) {
            index.owned.push(i);
            index.all.push(i);
          } else if (isPublic) {
            index.consumer.push(i);
            index.all.push(i);
          }
        }
      }
    }

    const sample = generateSampleParts();
    for (const { part, createdMs } of sample) {
      this.append({ part });
      this.lastCreatedMs = Math.max(this.lastCreatedMs, createdMs);
    }
    const rfqs = generateRfqs(sample);
    this.rfqsById = jsonMap(rfqs, (r) => r.id);
    for (const rfq of rfqs) {
      const list = this.rfqsByPart.get(rfq.partId) ?? [];
      list.push(rfq);
      this.rfqsByPart.set(rfq.partId, list);
    }
  }

  // ---- reference data and factories: every record as an array, or one by its key -----------

  processes(): Process[] {
    return records(this.json.processes);
  }
  materials(): Material[] {
    return records(this.json.materials);
  }
  standards(): Standard[] {
    return records(this.json.standards);
  }
  criticalities(): Criticality[] {
    return records(this.json.criticalities);
  }
  categories(): Category[] {
    return records(this.json.categories);
  }
  factories(): Factory[] {
    return records(this.json.factories);
  }
  process(code: string): Process | undefined {
    return this.json.processes.get(code)?.record;
  }
  material(code: string): Material | undefined {
    return this.json.materials.get(code)?.record;
  }
  standard(code: string): Standard | undefined {
    return this.json.standards.get(code)?.record;
  }
  criticality(id: string): Criticality | undefined {
    return this.json.criticalities.get(id)?.record;
  }
  category(id: string): Category | undefined {
    return this.json.categories.get(id)?.record;
  }
  factory(id: string): Factory | undefined {
    return this.json.factories.get(id)?.record;
  }

  private append(entry: Entry): void {
    const position = this.largeCatalogueSize + this.small.length;
    this.small.push(entry);
    this.byId.set(entry.part.id, entry);
    this.smallTitles.set(entry.part.title, (this.smallTitles.get(entry.part.title) ?? 0) + 1);
    const owner = this.orgIndex.get(entry.part.ipOwnerId);
    const isPublic = visibleToOthers(entry.part.published, entry.part.internal);
    this.indexes.forEach((index, o) => {
      if (o === owner) {
        index.owned.push(position);
        index.all.push(position);
      } else if (isPublic) {
        index.consumer.push(position);
        index.all.push(position);
      }
    });
  }

  // ---- organisations -------------------------------------------------------------------------

  /** The organisation of a bearer token, or undefined. */
  orgForToken(token: string): Org | undefined {
    return this.tokens.get(token);
  }

  /** The custom-field dropdowns of an organisation. */
  dropdownsOf(orgId: string): readonly Dropdown[] {
    return dropdownsOf(orgId);
  }

  // ---- parts ---------------------------------------------------------------------------------

  /** Number of parts: generated, sample and created. */
  get partCount(): number {
    return this.largeCatalogueSize + this.small.length;
  }

  /** A part with its full record (customFields always filled), whoever owns it; or undefined. */
  getPart(id: string): Part | undefined {
    const entry = this.byId.get(id);
    if (entry !== undefined) return entry.part;
    const i = this.large?.indexOf(id) ?? -1;
    return i < 0 ? undefined : this.large?.part(i);
  }

  /** Whether an organisation may see a part. */
  isVisible(part: Part, orgId: string): boolean {
    return part.ipOwnerId === orgId || visibleToOthers(part.published, part.internal);
  }

  /** The part as the API answers it to an organisation: undefined when invisible to it. */
  partFor(id: string, orgId: string): Part | undefined {
    const part = this.getPart(id);
    if (part === undefined || !this.isVisible(part, orgId)) return undefined;
    return part.ipOwnerId === orgId ? part : { ...part, customFields: EMPTY_PUBLIC_FIELDS };
  }

  /** JSON of a part as seen by an organisation, or undefined when unknown or invisible to it. */
  partJsonFor(id: string, orgId: string): string | undefined {
    const entry = this.byId.get(id);
    if (entry !== undefined) return this.entryJson(entry, orgId);
    const i = this.large?.indexOf(id) ?? -1;
    return i < 0 ? undefined : this.positionJson(i, orgId);
  }

  private entryJson(entry: Entry, orgId: string): string | undefined {
    const { part } = entry;
    if (part.ipOwnerId === orgId) {
      entry.ownerJson ??= JSON.stringify(part);
      return entry.ownerJson;
    }
    if (!visibleToOthers(part.published, part.internal)) return undefined;
    entry.publicJson ??= JSON.stringify({ ...part, customFields: EMPTY_PUBLIC_FIELDS });
    return entry.publicJson;
  }

  private positionJson(position: number, orgId: string): string | undefined {
    if (position >= this.largeCatalogueSize) {
      const entry = this.small[position - this.largeCatalogueSize];
      return entry === undefined ? undefined : this.entryJson(entry, orgId);
    }
    const large = this.large as LargeCatalogue;
    const owner = this.orgIndex.get(orgId) === large.ownerIndex(position);
    if (!owner && !visibleToOthers(large.published(position), large.internal(position))) return undefined;
    const key = position * 2 + (owner ? 1 : 0);
    let json = this.generatedJson.get(key);
    if (json === undefined) {
      const part = large.part(position);
      json = JSON.stringify(owner ? part : { ...part, customFields: EMPTY_PUBLIC_FIELDS });
      if (this.generatedJson.size >= GENERATED_JSON_CACHE_MAX) {
        this.generatedJson.delete(this.generatedJson.keys().next().value as number);
      }
      this.generatedJson.set(key, json);
    }
    return json;
  }

  private positions(orgId: string, view: PartView | undefined): readonly number[] {
    const o = this.orgIndex.get(orgId);
    const index = o === undefined ? undefined : this.indexes[o];
    if (index === undefined) return [];
    return view === "IP_OWNER" ? index.owned : view === "CONSUMER" ? index.consumer : index.all;
  }

  /** Number of parts in an organisation's view (see the list handler for the views). */
  viewSize(orgId: string, view?: PartView): number {
    return this.positions(orgId, view).length;
  }

  /** One page of a view, serialised as the List Parts response. */
  listPartsJson(orgId: string, view: PartView | undefined, page: number, pageSize: number): string {
    const positions = this.positions(orgId, view);
    const start = (page - 1) * pageSize;
    if (start >= positions.length) return '{"items":[],"hasMore":false}';
    const end = Math.min(positions.length, start + pageSize);
    const items: string[] = [];
    for (let k = start; k < end; k++) {
      const json = this.positionJson(positions[k] as number, orgId);
      if (json !== undefined) items.push(json);
    }
    return `{"items":[${items.join(",")}],"hasMore":${end < positions.length}}`;
  }

  /** One page of a view, as records. */
  listParts(
    orgId: string,
    view: PartView | undefined,
    page: number,
    pageSize: number,
  ): { items: Part[]; hasMore: boolean } {
    return JSON.parse(this.listPartsJson(orgId, view, page, pageSize)) as { items: Part[]; hasMore: boolean };
  }

  /** Every part in list order (generated ones are built on the fly). */
  *parts(): Generator<Part> {
    for (let i = 0; i < this.largeCatalogueSize; i++) yield (this.large as LargeCatalogue).part(i);
    for (const entry of this.small) yield entry.part;
  }

  /** Sample and created parts only (not the generated catalogue), in list order. */
  sampleParts(): Part[] {
    return this.small.map((e) => e.part);
  }

  /** Parts created through the API, oldest first. */
  createdParts(): Part[] {
    return this.createdIds.map((id) => (this.byId.get(id) as Entry).part);
  }

  /** How many parts have exactly this title (generated ones included). */
  countPartsWithTitle(title: string): number {
    const large = this.large;
    if (large !== undefined && this.largeTitles === undefined) {
      const titles = new Map<string, number>();
      for (let i = 0; i < large.size; i++) {
        const t = large.title(i);
        titles.set(t, (titles.get(t) ?? 0) + 1);
      }
      this.largeTitles = titles;
    }
    return (this.smallTitles.get(title) ?? 0) + (this.largeTitles?.get(title) ?? 0);
  }

  /** The create-body fields a created part's record does not show (notes, metadata, units...). */
  createExtras(partId: string): CreateExtras | undefined {
    return this.byId.get(partId)?.extras;
  }

  /**
   * Creates a part owned by `orgId`. Every reference must exist (400 naming the field and the
   * value), custom fields must use the organisation's own dropdowns and their options. A new part
   * is a draft: unpublished, so only its organisation sees it until published (which no
   * operation of the API does).
   */
  createPart(orgId: string, body: CreatePartBody): Part {
    const { json } = this;
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
    const customFields = this.resolveCustomFields(orgId, body.customFields ?? []);

    const org = this.orgs.find((o) => o.id === orgId) as Org;
    const nowMs = Math.max(Date.now(), this.lastCreatedMs + 1);
    this.lastCreatedMs = nowMs;
    const now = new Date(nowMs).toISOString();
    let id: string;
    do id = `prt_${this.ids.base36(10)}`;
    while (this.byId.has(id));
    this.createdSerial += 1;

    const part: Record<string, unknown> = {
      id,
      title: body.title,
      serialId: `${org.serialPrefix}-NEW-${String(this.createdSerial).padStart(5, "0")}`,
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
    const entry: Entry = { part: part as Part };
    if (Object.keys(extras).length > 0) entry.extras = extras;
    this.append(entry);
    this.createdIds.push(id);
    return entry.part;
  }

  private resolveCustomFields(
    orgId: string,
    selections: NonNullable<CreatePartBody["customFields"]>,
  ): CustomFieldSelection[] {
    const own = new Map(this.dropdownsOf(orgId).map((d) => [d.id, d]));
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
        throw new ApiError(
          400,
          `${field}.selectedOptionIds: dropdown ${quote(dropdown.id)} allows one option`,
        );
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

  // ---- files ---------------------------------------------------------------------------------

  /**
   * Records a file attached to a part. The caller must see the part (404 otherwise, as for an
   * unknown id); the specification shows no further permission. `location` is the file address
   * without its query string, which is never stored.
   */
  importFile(orgId: string, partId: string, name: string, location: string): ImportedFile {
    const part = this.getPart(partId);
    if (part === undefined || !this.isVisible(part, orgId)) {
      throw new ApiError(404, `part ${quote(partId)} not found`);
    }
    const file: ImportedFile = {
      fileId: `fil_${this.ids.base36(12)}`,
      partId,
      orgId,
      name,
      location,
      createdTime: new Date().toISOString(),
    };
    this.files.push(file);
    return file;
  }

  /** Files attached so far, all or of one part. */
  importedFiles(partId?: string): ImportedFile[] {
    return partId === undefined ? [...this.files] : this.files.filter((f) => f.partId === partId);
  }

  // ---- RFQs ----------------------------------------------------------------------------------

  /** Every RFQ, by id (the first is for a part of the first demo organisation). */
  rfqs(): Rfq[] {
    return records(this.rfqsById);
  }

  rfq(id: string): Rfq | undefined {
    return this.rfqsById.get(id)?.record;
  }

  /** RFQs of a part. */
  rfqsForPart(partId: string): Rfq[] {
    return [...(this.rfqsByPart.get(partId) ?? [])];
  }

  /** JSON of an RFQ, or undefined when unknown or when its part is invisible to the caller. */
  rfqJsonFor(id: string, orgId: string): string | undefined {
    const found = this.rfqsById.get(id);
    if (found === undefined) return undefined;
    const part = this.getPart(found.record.partId);
    if (part === undefined || !this.isVisible(part, orgId)) return undefined;
    return found.json;
  }
}
