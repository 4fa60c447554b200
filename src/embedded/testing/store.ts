// The state of the embedded API as tests and benchmarks read it: records as arrays, parts as
// records rather than JSON, counts and what a create kept. The API itself never reads these.
import type {
  Category,
  Criticality,
  Factory,
  Material,
  Part,
  Process,
  Rfq,
  Standard,
} from "../../api/schemas";
import type { CreateExtras } from "../create-part";
import { DROPDOWNS, type Dropdown, ORGS, type Org } from "../data/reference";
import { type ImportedFile, type PartView, Store } from "../store";

const EMPTY_PUBLIC_FIELDS: Part["customFields"] = [];

function records<T>(map: ReadonlyMap<string, { record: T }>): T[] {
  return [...map.values()].map((v) => v.record);
}

export class TestStore extends Store {
  readonly orgs: readonly Org[] = ORGS;
  readonly dropdowns: readonly Dropdown[] = DROPDOWNS;
  private largeTitles: Map<string, number> | undefined;

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

  // ---- parts ---------------------------------------------------------------------------------

  /** Number of parts: generated, sample and created. */
  get partCount(): number {
    return this.largeCatalogueSize + this.small.length;
  }

  /** The part as the API answers it to an organisation: undefined when invisible to it. */
  partFor(id: string, orgId: string): Part | undefined {
    const part = this.getPart(id);
    if (part === undefined || !this.isVisible(part, orgId)) return undefined;
    return part.ipOwnerId === orgId ? part : { ...part, customFields: EMPTY_PUBLIC_FIELDS };
  }

  /** Number of parts in an organisation's view (see the list handler for the views). */
  viewSize(orgId: string, view?: PartView): number {
    return this.positions(orgId, view).length;
  }

  /** Parts `start` to `start + count` of an organisation's view, as the API lists them. */
  listed(orgId: string, view: PartView | undefined, start: number, count: number): Part[] {
    const end = Math.min(this.viewSize(orgId, view), start + count);
    const parts: Part[] = [];
    for (let k = start; k < end; k++) {
      const { items } = JSON.parse(this.listPartsJson(orgId, view, k + 1, 1)) as { items: Part[] };
      parts.push(...items);
    }
    return parts;
  }

  /** Every part in list order (generated ones are built on the fly). */
  *parts(): Generator<Part> {
    for (let i = 0; i < this.largeCatalogueSize; i++) yield this.large?.part(i) as Part;
    for (const entry of this.small) yield entry.part;
  }

  /** Sample and created parts only (not the generated catalogue), in list order. */
  sampleParts(): Part[] {
    return this.small.map((e) => e.part);
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
    const small = this.small.filter((e) => e.part.title === title).length;
    return small + (this.largeTitles?.get(title) ?? 0);
  }

  /** The create-body fields a created part's record does not show (notes, metadata, units...). */
  createExtras(partId: string): CreateExtras | undefined {
    return this.byId.get(partId)?.extras;
  }

  // ---- files and RFQs ------------------------------------------------------------------------

  /** Files attached so far, all or of one part. */
  importedFiles(partId?: string): ImportedFile[] {
    return partId === undefined ? [...this.files] : this.files.filter((f) => f.partId === partId);
  }

  /** Every RFQ, by id (the first is for a part of the first demo organisation). */
  rfqs(): Rfq[] {
    return records(this.rfqsById);
  }

  /** RFQs of a part. */
  rfqsForPart(partId: string): Rfq[] {
    return this.rfqs().filter((r) => r.partId === partId);
  }
}
