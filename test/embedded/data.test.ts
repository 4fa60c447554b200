// Integrity of the sample data: counts, realistic names, every reference resolves, every RFQ
// state present, deterministic from one start to the next.
import { describe, expect, it } from "vitest";
import {
  Category,
  Criticality,
  Factory,
  MATERIAL_TYPES,
  Material,
  Part,
  Process,
  RFQ_STATES,
  Rfq,
  Standard,
} from "../../src/api/schemas";
import { DEMO_ACCOUNTS, TestStore } from "../../src/embedded/testing";
import { hasNull } from "./helpers";

const store = new TestStore();
const parts = store.sampleParts();
const orgIds = new Set(store.orgs.map((o) => o.id));

describe("reference data", () => {
  it("meets the minimum counts, every record valid", () => {
    expect(store.processes().length).toBeGreaterThanOrEqual(12);
    expect(store.materials().length).toBeGreaterThanOrEqual(20);
    expect(store.standards().length).toBeGreaterThanOrEqual(30);
    expect(store.criticalities()).toHaveLength(6);
    expect(store.categories().length).toBeGreaterThanOrEqual(20);
    expect(store.factories()).toHaveLength(3);
    for (const p of store.processes()) Process.strict().parse(p);
    for (const m of store.materials()) Material.strict().parse(m);
    for (const s of store.standards()) Standard.strict().parse(s);
    for (const c of store.criticalities()) Criticality.strict().parse(c);
    for (const c of store.categories()) Category.strict().parse(c);
    for (const f of store.factories()) Factory.strict().parse(f);
  });

  it("names what a manufacturing engineer expects", () => {
    const processNames = store
      .processes()
      .map((p) => p.name.toLowerCase())
      .join("|");
    for (const name of [
      "cnc milling",
      "cnc turning",
      "laser powder bed fusion",
      "selective laser sintering",
      "fused deposition",
      "stereolithography",
      "multi jet fusion",
      "investment casting",
      "sand casting",
      "injection moulding",
      "sheet metal",
      "die casting",
      "edm",
    ]) {
      expect(processNames, name).toContain(name);
    }
    const materialNames = store
      .materials()
      .map((m) => m.name)
      .join("|");
    for (const name of [
      "Ti-6Al-4V",
      "AlSi10Mg",
      "316L",
      "17-4PH",
      "Inconel 718",
      "Inconel 625",
      "6061-T6",
      "7075-T6",
      "PA12",
      "PA11",
      "PEEK",
      "ULTEM 9085",
      "ABS",
      "Polycarbonate",
    ]) {
      expect(materialNames, name).toContain(name);
    }
    const codes = store.standards().map((s) => s.code);
    for (const code of ["ASTM F3001", "AMS 4928", "ISO 2768-1", "MIL-STD-810H", "DIN 17660"])
      expect(codes).toContain(code);
    expect(new Set(store.standards().map((s) => s.governingBody))).toEqual(
      new Set(["ASTM", "ISO", "SAE", "DIN", "MIL"]),
    );
    for (const s of store.standards()) expect(MATERIAL_TYPES as readonly string[]).toContain(s.materialType);
    for (const p of store.processes()) expect(MATERIAL_TYPES as readonly string[]).toContain(p.materialType);
    for (const m of store.materials()) expect(MATERIAL_TYPES as readonly string[]).toContain(m.type);
    expect(store.criticalities().every((c) => c.governingBody)).toBe(true);
  });

  it("keys are unique; codes and ids are URL-friendly (standard codes keep their spaces)", () => {
    const keyed: [string, string[]][] = [
      ["process", store.processes().map((p) => p.code)],
      ["material", store.materials().map((m) => m.code)],
      ["standard", store.standards().map((s) => s.code)],
      ["criticality", store.criticalities().map((c) => c.id)],
      ["category", store.categories().map((c) => c.id)],
      ["factory", store.factories().map((f) => f.id)],
      ["rfq", store.rfqs().map((r) => r.id)],
      ["part", parts.map((p) => p.id)],
    ];
    for (const [what, keys] of keyed) {
      expect(new Set(keys).size, what).toBe(keys.length);
      for (const key of keys) {
        expect(key, what).toMatch(what === "standard" ? /^[A-Z][A-Za-z0-9 ./-]+$/ : /^[a-z0-9][a-z0-9_-]*$/);
      }
    }
    expect(store.standards().some((s) => s.code.includes(" "))).toBe(true);
  });

  it("the category tree resolves to top-level categories without cycles", () => {
    const byId = new Map(store.categories().map((c) => [c.id, c]));
    const roots = store.categories().filter((c) => c.parentId === undefined);
    expect(roots.length).toBeGreaterThanOrEqual(3);
    for (const category of store.categories()) {
      let current = category;
      for (let depth = 0; current.parentId !== undefined; depth++) {
        expect(depth).toBeLessThan(10);
        current = byId.get(current.parentId) as typeof current;
        expect(current, category.id).toBeDefined();
      }
    }
    expect(store.categories().some((c) => c.parentId && byId.get(c.parentId)?.parentId)).toBe(true);
  });

  it("factories belong to the organisations", () => {
    for (const f of store.factories()) expect(orgIds.has(f.orgId as string)).toBe(true);
  });
});

describe("sample parts", () => {
  it("are at least 150 valid parts of three organisations, nothing null", () => {
    expect(parts.length).toBeGreaterThanOrEqual(150);
    for (const part of parts) {
      Part.strict().parse(part);
      expect(hasNull(part)).toBe(false);
      expect(orgIds.has(part.ipOwnerId)).toBe(true);
    }
    expect(new Set(parts.map((p) => p.ipOwnerId)).size).toBe(3);
  });

  it("every reference resolves", () => {
    for (const part of parts) {
      if (part.processId) expect(store.process(part.processId), part.id).toBeDefined();
      if (part.materialId) expect(store.material(part.materialId), part.id).toBeDefined();
      for (const code of part.standardIds ?? []) expect(store.standard(code), code).toBeDefined();
      for (const id of part.criticalityIds ?? []) expect(store.criticality(id), id).toBeDefined();
      for (const id of part.categoryIds ?? []) expect(store.category(id), id).toBeDefined();
      for (const id of part.unspscCategoryIds ?? []) expect(id).toMatch(/^\d{8}$/);
      if (part.parentId) {
        const parent = store.getPart(part.parentId);
        expect(parent?.ipOwnerId, part.id).toBe(part.ipOwnerId);
        expect(parent?.parentId).toBeUndefined();
        expect(part.versionName).toMatch(/^Rev [B-Z]$/);
        expect(parent!.createdTime < part.createdTime).toBe(true);
      }
      for (const field of part.customFields) {
        const dropdown = store.dropdowns.find((d) => d.id === field.dropdownId);
        expect(dropdown?.orgId, field.dropdownId).toBe(part.ipOwnerId);
        expect(field).toMatchObject({ dropdownLabel: dropdown?.label, multiselect: dropdown?.multiselect });
        for (const option of field.selectedOptions) expect(dropdown?.options).toContainEqual(option);
        if (!field.multiselect) expect(field.selectedOptions).toHaveLength(1);
      }
    }
  });

  it("look real: versions, dimensions, bounding boxes, keywords, custom fields, optional fields sometimes absent", () => {
    const share = (pred: (p: Part) => boolean) => parts.filter(pred).length / parts.length;
    expect(share((p) => p.parentId !== undefined)).toBeGreaterThan(0.1);
    expect(share((p) => p.dimensions !== undefined)).toBeGreaterThan(0.8);
    expect(share((p) => p.boundingBox !== undefined)).toBeGreaterThan(0.8);
    expect(share((p) => p.keywords.length >= 2)).toBe(1);
    expect(share((p) => p.customFields.length > 0)).toBeGreaterThan(0.5);
    for (const key of [
      "externalRef",
      "description",
      "versionName",
      "processId",
      "criticalityIds",
      "dimensions",
    ] as const) {
      const present = share((p) => p[key] !== undefined);
      expect(present, key).toBeGreaterThan(0);
      expect(present, key).toBeLessThan(1);
    }
    const withWeight = parts.find((p) => p.materialId === "ti64" && p.dimensions?.weight !== undefined)!;
    expect(withWeight.dimensions!.weight! / withWeight.dimensions!.volume!).toBeCloseTo(4.43 / 1000, 6);
    expect(parts.every((p) => p.createdTime.startsWith("202"))).toBe(true);
  });

  it("cover every visibility case for every organisation", () => {
    for (const org of orgIds) {
      const others = parts.filter((p) => p.ipOwnerId !== org);
      expect(
        others.some((p) => p.published && !p.internal),
        org,
      ).toBe(true);
      expect(
        others.some((p) => !p.published),
        org,
      ).toBe(true);
      expect(
        others.some((p) => p.published && p.internal),
        org,
      ).toBe(true);
      expect(parts.some((p) => p.ipOwnerId === org && !p.published)).toBe(true);
    }
  });
});

describe("RFQs", () => {
  const rfqs = store.rfqs();

  it("exist in every state, for sample parts", () => {
    expect(new Set(rfqs.map((r) => r.state))).toEqual(new Set(RFQ_STATES));
    for (const rfq of rfqs) {
      Rfq.strict().parse(rfq);
      expect(store.getPart(rfq.partId), rfq.id).toBeDefined();
      expect(store.rfqsForPart(rfq.partId)).toContainEqual(rfq);
      if (rfq.deadlineTime && rfq.expireTime) expect(rfq.deadlineTime < rfq.expireTime).toBe(true);
    }
    expect(rfqs.some((r) => r.deadlineTime === undefined)).toBe(true);
  });

  it("the first RFQ is readable with the demo token; others are on parts hidden from some organisations", () => {
    const first = rfqs[0]!;
    expect(store.rfqJsonFor(first.id, DEMO_ACCOUNTS[0]!.orgId)).toBeDefined();
    const hiddenSomewhere = rfqs.filter((r) =>
      DEMO_ACCOUNTS.some((a) => store.rfqJsonFor(r.id, a.orgId) === undefined),
    );
    expect(hiddenSomewhere.length).toBeGreaterThan(0);
    expect(store.rfqJsonFor("rfq-missing", DEMO_ACCOUNTS[0]!.orgId)).toBeUndefined();
  });
});

describe("determinism", () => {
  it("two starts hold the same data", () => {
    const again = new TestStore();
    expect(again.sampleParts()).toEqual(parts);
    expect(again.rfqs()).toEqual(store.rfqs());
    expect(again.standards()).toEqual(store.standards());
  });

  it("demo accounts are fixed, distinct and distinctive", () => {
    expect(DEMO_ACCOUNTS.map((a) => a.orgId)).toEqual([
      "org-acme-aero",
      "org-borealis-med",
      "org-cobalt-mobility",
    ]);
    for (const account of DEMO_ACCOUNTS) {
      expect(account.token).toMatch(/^pat_demo_[a-z]+_[0-9a-z]{16}$/);
      expect(store.orgForToken(account.token)?.id).toBe(account.orgId);
    }
    expect(store.orgForToken("pat_demo_acme")).toBeUndefined();
  });
});
