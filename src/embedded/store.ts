// The state of the embedded API: reference data, parts (sample, generated, created), RFQs and
// imported files, with the visibility rules and the paging indexes. It holds what the handlers
// need; what only tests read about the state is in testing/store.ts.
//
// Visibility (who may see a part): its IP owner's organisation always; any other organisation
// only when the part is published and not internal. A part a caller may not see answers 404,
// exactly like an unknown id, so its existence does not leak.
//
// Order of every list: creation time, then id. Generated parts (2019-2021) come before the
// sample parts (2024), and created parts are stamped "now", never earlier than the newest part,
// so appending keeps the order. Each organisation has three index arrays of positions (owned,
// consumer, all visible), so a page is one slice whatever its number.
import { LRUCache } from "lru-cache";
import type { CreatePartBody, CustomFieldSelection, Part, Rfq } from "../api/schemas";
import { type CreateExtras, checkReferences, createdPart, extrasOf } from "./create-part";
import { LargeCatalogue } from "./data/large";
import {
  CATEGORIES,
  CRITICALITIES,
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

export type PartView = "IP_OWNER" | "CONSUMER";

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
function visibleToOthers(published: boolean, internal: boolean): boolean {
  return published && !internal;
}
/** Serialised generated parts kept (least recently used evicted first): about 1 KB each. */
const GENERATED_JSON_CACHE_MAX = 20_000;
const ID_SEED = 0x1d5eed;

/** Serialises a record once and keeps the string, for reference data served as is. */
function jsonMap<T>(list: readonly T[], key: (r: T) => string): Map<string, { record: T; json: string }> {
  return new Map(list.map((r) => [key(r), { record: r, json: JSON.stringify(r) }]));
}

export class Store {
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
  protected readonly large: LargeCatalogue | undefined;
  /** Sample then created parts, in creation order; position = largeCatalogueSize + index. */
  protected readonly small: Entry[] = [];
  protected readonly byId = new Map<string, Entry>();
  private readonly indexes: OrgIndex[];
  protected readonly rfqsById: Map<string, { record: Rfq; json: string }>;
  protected readonly files: ImportedFile[] = [];
  private readonly ids = new Rng(ID_SEED);
  private lastCreatedMs = 0;
  private createdSerial = 0;
  /** JSON of generated parts by position × 2 + (1 for the owner's variant). */
  private readonly generatedJson = new LRUCache<number, string>({ max: GENERATED_JSON_CACHE_MAX });

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
    this.rfqsById = jsonMap(generateRfqs(sample), (r) => r.id);
  }

  private append(entry: Entry): void {
    const position = this.largeCatalogueSize + this.small.length;
    this.small.push(entry);
    this.byId.set(entry.part.id, entry);
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

  // ---- parts ---------------------------------------------------------------------------------

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
      this.generatedJson.set(key, json);
    }
    return json;
  }

  protected positions(orgId: string, view: PartView | undefined): readonly number[] {
    const o = this.orgIndex.get(orgId);
    const index = o === undefined ? undefined : this.indexes[o];
    if (index === undefined) return [];
    return view === "IP_OWNER" ? index.owned : view === "CONSUMER" ? index.consumer : index.all;
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

  /**
   * Creates a part owned by `orgId` (./create-part.ts): references checked first (a 400 names the
   * field and the value), then the part is given its id, serial and time, and filed.
   */
  createPart(orgId: string, body: CreatePartBody): Part {
    const checked = checkReferences(orgId, body, this.json);

    const org = ORGS[this.orgIndex.get(orgId) as number] as Org;
    const nowMs = Math.max(Date.now(), this.lastCreatedMs + 1);
    this.lastCreatedMs = nowMs;
    const now = new Date(nowMs).toISOString();
    let id: string;
    do id = `prt_${this.ids.base36(10)}`;
    while (this.byId.has(id));
    this.createdSerial += 1;

    const part = createdPart(orgId, body, checked, {
      id,
      serialId: `${org.serialPrefix}-NEW-${String(this.createdSerial).padStart(5, "0")}`,
      now,
    });
    const entry: Entry = { part };
    const extras = extrasOf(body);
    if (extras !== undefined) entry.extras = extras;
    this.append(entry);
    return entry.part;
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

  // ---- RFQs ----------------------------------------------------------------------------------

  /** JSON of an RFQ, or undefined when unknown or when its part is invisible to the caller. */
  rfqJsonFor(id: string, orgId: string): string | undefined {
    const found = this.rfqsById.get(id);
    if (found === undefined) return undefined;
    const part = this.getPart(found.record.partId);
    if (part === undefined || !this.isVisible(part, orgId)) return undefined;
    return found.json;
  }
}
