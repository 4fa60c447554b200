// Every endpoint's success path over real HTTP, with its exact shape, and the state it keeps.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { endpoints } from "../../src/api/endpoints";
import { Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, errorOf, hasNull, ok } from "./helpers";

let api: TestApi;
let borealis: string;
let acmeOrg: string;

beforeAll(async () => {
  api = await startTestApi();
  borealis = api.accounts[1]!.token;
  acmeOrg = api.accounts[0]!.orgId;
});
afterAll(() => api.close());

const strict = <S extends z.core.$ZodShape>(schema: z.ZodObject<S>) => schema.strict();
const enc = encodeURIComponent;

/** A part of `owner` matching `pred`, from the store. */
function partOf(owner: string, pred: (p: Part) => boolean = () => true): Part {
  const part = api.store.sampleParts().find((p) => p.ipOwnerId === owner && pred(p));
  if (!part) throw new Error(`no sample part of ${owner} matches`);
  return part;
}

describe("parts", () => {
  it("GET /v1/parts/{id} answers the exact Part shape, nothing null, no unknown field", async () => {
    const stored = partOf(acmeOrg, (p) => p.customFields.length > 0 && p.parentId !== undefined);
    const reply = await call(api, `/v1/parts/${enc(stored.id)}`);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    const part = ok(reply, strict(endpoints.getPart.response));
    expect(part).toEqual(stored);
    expect(hasNull(reply.json)).toBe(false);
    expect(part.customFields.length).toBeGreaterThan(0);
    expect(Date.parse(part.createdTime)).toBeLessThanOrEqual(Date.parse(part.modifiedTime));
  });

  it("GET /v1/parts lists 20 parts by default, each a valid Part", async () => {
    const list = ok(await call(api, "/v1/parts"), strict(endpoints.listParts.response));
    expect(list.items).toHaveLength(20);
    expect(list.hasMore).toBe(true);
    for (const item of list.items) strict(Part).parse(item);
  });

  it("POST /v1/parts creates a part that can be read and listed (round trip)", async () => {
    const body = {
      title: "Bracket, hinge, left",
      externalRef: "D53-4711-501",
      description: "Created by the round-trip test",
      requireSubscription: true,
      materialId: "ti64",
      processId: "lpbf",
      materialNote: "powder lot 42",
      standardIds: ["ASTM F2924", "ASTM E8/E8M"],
      criticalityIds: ["crit-fsc"],
      categoryIds: ["cat-brackets"],
      unspscCategoryIds: ["31162800"],
      keywords: ["bracket", "hinge"],
      internal: true,
      boundingBox: { x: 120.5, y: 40, z: 22.25 },
      metadata: { programme: "A350" },
      customFields: [
        { dropdownId: "dd-acme-programme", selectedOptionIds: ["opt-acme-a350"] },
        { dropdownId: "dd-acme-treatment", selectedOptionIds: ["opt-acme-hip", "opt-acme-ra16"] },
      ],
      materialType: "metal",
      unitSystem: "METRIC",
    };
    const before = api.store.viewSize(acmeOrg, "IP_OWNER");
    const created = ok(await call(api, "/v1/parts", { body }), strict(endpoints.createPart.response));
    expect(created.partUrl).toBe(`${api.url}/v1/parts/${enc(created.id)}`);

    const part = ok(await call(api, new URL(created.partUrl).pathname), strict(Part));
    expect(part).toMatchObject({
      id: created.id,
      title: body.title,
      ipOwnerId: acmeOrg,
      internal: true,
      published: false,
      requireSubscription: true,
      externalRef: body.externalRef,
      description: body.description,
      materialId: "ti64",
      processId: "lpbf",
      standardIds: body.standardIds,
      criticalityIds: ["crit-fsc"],
      categoryIds: ["cat-brackets"],
      unspscCategoryIds: ["31162800"],
      keywords: ["bracket", "hinge"],
      boundingBox: body.boundingBox,
    });
    expect(part.customFields.map((c) => [c.dropdownId, c.selectedOptions.map((o) => o.id)])).toEqual([
      ["dd-acme-programme", ["opt-acme-a350"]],
      ["dd-acme-treatment", ["opt-acme-hip", "opt-acme-ra16"]],
    ]);
    expect(part.customFields[0]).toMatchObject({ dropdownLabel: "Aircraft programme", multiselect: false });
    expect(part.createdTime).toBe(part.modifiedTime);
    expect(part).not.toHaveProperty("dimensions");
    expect(api.store.createExtras(created.id)).toEqual({
      materialNote: "powder lot 42",
      metadata: { programme: "A350" },
      materialType: "metal",
      unitSystem: "METRIC",
    });

    // Listed last in the owner's view (newest), and counted.
    const size = api.store.viewSize(acmeOrg, "IP_OWNER");
    expect(size).toBe(before + 1);
    const lastPage = Math.ceil(size / 50);
    const list = ok(
      await call(api, `/v1/parts?view=IP_OWNER&pageSize=50&page=${lastPage}`),
      endpoints.listParts.response,
    );
    expect(list.hasMore).toBe(false);
    expect(list.items.at(-1)?.id).toBe(created.id);
    expect(api.store.countPartsWithTitle(body.title)).toBe(1);

    // A draft: invisible to another organisation.
    expect(errorOf(await call(api, `/v1/parts/${enc(created.id)}`, { token: borealis })).code).toBe(
      "not_found",
    );
  });

  it("POST /v1/parts with only a title fills the defaults", async () => {
    const created = ok(
      await call(api, "/v1/parts", { body: { title: "Minimal" } }),
      endpoints.createPart.response,
    );
    const part = ok(await call(api, `/v1/parts/${enc(created.id)}`), strict(Part));
    expect(part).toMatchObject({
      internal: false,
      published: false,
      requireSubscription: false,
      keywords: [],
    });
    expect(part.customFields).toEqual([]);
    expect(Object.keys(part).sort()).toEqual(
      [
        "id",
        "title",
        "serialId",
        "ipOwnerId",
        "internal",
        "published",
        "requireSubscription",
        "keywords",
        "createdTime",
        "modifiedTime",
        "customFields",
      ].sort(),
    );
  });

  it("POST /v1/parts rejects references that do not exist, naming the field and the value", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ processId: "laser-magic" }, /^processId: unknown process "laser-magic"$/],
      [{ materialId: "unobtainium" }, /^materialId: unknown material "unobtainium"$/],
      [{ standardIds: ["ASTM F3001", "ASTM X1"] }, /^standardIds\[1\]: unknown standard "ASTM X1"$/],
      [{ criticalityIds: ["crit-nope"] }, /^criticalityIds\[0\]: unknown criticality "crit-nope"$/],
      [{ categoryIds: ["cat-brackets", "cat-nope"] }, /^categoryIds\[1\]: unknown category "cat-nope"$/],
      [
        { customFields: [{ dropdownId: "dd-bor-udi", selectedOptionIds: ["opt-bor-udi-label"] }] },
        /^customFields\[0\]\.dropdownId: unknown dropdown "dd-bor-udi"/,
      ],
      [
        { customFields: [{ dropdownId: "dd-acme-programme", selectedOptionIds: ["opt-acme-ct100"] }] },
        /^customFields\[0\]\.selectedOptionIds\[0\]: unknown option "opt-acme-ct100"/,
      ],
      [
        {
          customFields: [
            { dropdownId: "dd-acme-programme", selectedOptionIds: ["opt-acme-a350", "opt-acme-h160"] },
          ],
        },
        /^customFields\[0\]\.selectedOptionIds: dropdown "dd-acme-programme" allows one option$/,
      ],
      [
        {
          customFields: [
            { dropdownId: "dd-acme-programme", selectedOptionIds: [] },
            { dropdownId: "dd-acme-programme", selectedOptionIds: [] },
          ],
        },
        /^customFields\[1\]\.dropdownId: duplicate dropdown/,
      ],
    ];
    const before = api.store.partCount;
    for (const [extra, message] of cases) {
      const reply = await call(api, "/v1/parts", { body: { title: "Rejected", ...extra } });
      expect(reply.status, JSON.stringify(extra)).toBe(400);
      expect(errorOf(reply)).toMatchObject({ code: "invalid_argument" });
      expect(errorOf(reply).message).toMatch(message);
    }
    expect(api.store.partCount).toBe(before);
  });

  it("another organisation's dropdowns are valid for that organisation only", async () => {
    const body = {
      title: "Trial, borealis",
      customFields: [
        { dropdownId: "dd-bor-sterilisation", selectedOptionIds: ["opt-bor-eto", "opt-bor-gamma"] },
      ],
    };
    expect((await call(api, "/v1/parts", { body })).status).toBe(400);
    const created = ok(
      await call(api, "/v1/parts", { body, token: borealis }),
      endpoints.createPart.response,
    );
    const part = ok(await call(api, `/v1/parts/${enc(created.id)}`, { token: borealis }), Part);
    expect(part.ipOwnerId).toBe(api.accounts[1]!.orgId);
    expect(part.customFields[0]?.selectedOptions.map((o) => o.value)).toEqual(["ETO", "GAMMA"]);
  });
});

describe("import-file", () => {
  const path = (id: string) => `/v1/parts/${enc(id)}/import-file`;

  it("records the file and returns a fileId; the stored address has no query string", async () => {
    const part = partOf(acmeOrg);
    const sasUrl = "https://files.example.com/cad/bracket.step?sv=2024-01-01&sig=TopSecretSig%3D";
    const result = ok(
      await call(api, path(part.id), { body: { name: "bracket.step", sasUrl } }),
      strict(endpoints.importPartFile.response),
    );
    expect(result.fileId).toMatch(/^fil_[0-9a-z]+$/);
    const file = api.store.importedFiles(part.id).find((f) => f.fileId === result.fileId);
    expect(file).toMatchObject({
      partId: part.id,
      orgId: acmeOrg,
      name: "bracket.step",
      location: "https://files.example.com/cad/bracket.step",
    });
    expect(JSON.stringify(api.store.importedFiles())).not.toContain("TopSecretSig");
  });

  it("accepts http: on loopback only", async () => {
    const part = partOf(acmeOrg);
    for (const sasUrl of [
      "http://127.0.0.1:9/f.step?sig=x",
      "http://localhost/f.step",
      "http://[::1]:8080/f.stl",
    ]) {
      expect((await call(api, path(part.id), { body: { name: "f.step", sasUrl } })).status, sasUrl).toBe(200);
    }
  });

  it("rejects a sasUrl that is not absolute https:, never echoing it", async () => {
    const part = partOf(acmeOrg);
    const bad = [
      "ftp://files.example.com/f.step?sig=LeakMe1",
      "http://files.example.com/f.step?sig=LeakMe2",
      "/relative/f.step?sig=LeakMe3",
      "not a url sig=LeakMe4",
      "https://user:LeakMe5@files.example.com/f.step",
    ];
    for (const sasUrl of bad) {
      const reply = await call(api, path(part.id), { body: { name: "f.step", sasUrl } });
      expect(reply.status, sasUrl).toBe(400);
      expect(errorOf(reply).message).toMatch(/^sasUrl: /);
      expect(reply.text).not.toContain("LeakMe");
      expect(reply.text).not.toContain("files.example.com");
    }
  });

  it("rejects names with path separators or control characters", async () => {
    const part = partOf(acmeOrg);
    for (const name of ["../etc/passwd", "a\\b.step", "bad\u0000name", "."]) {
      const reply = await call(api, path(part.id), { body: { name, sasUrl: "https://f.example.com/x" } });
      expect(reply.status, JSON.stringify(name)).toBe(400);
      expect(errorOf(reply).message).toMatch(/^name: /);
    }
  });

  it("answers 404 for an unknown part or one the caller may not see, without echoing the URL", async () => {
    const hidden = partOf(api.accounts[1]!.orgId, (p) => !p.published);
    for (const id of ["prt_doesnotexist", hidden.id]) {
      const reply = await call(api, path(id), {
        body: { name: "x.step", sasUrl: "https://files.example.com/x.step?sig=LeakMe6" },
      });
      expect(reply.status).toBe(404);
      expect(errorOf(reply).code).toBe("not_found");
      expect(reply.text).not.toContain("LeakMe6");
    }
  });

  it("accepts a file for another organisation's published part", async () => {
    const visible = partOf(api.accounts[2]!.orgId, (p) => p.published && !p.internal);
    const reply = await call(api, path(visible.id), {
      body: { name: "x.step", sasUrl: "https://f.example.com/x" },
    });
    expect(reply.status).toBe(200);
  });
});

describe("RFQs and factories", () => {
  it("GET /v1/rfqs/{id} answers the RFQ when its part is visible, 404 otherwise", async () => {
    const rfqs = api.store.rfqs();
    const first = rfqs[0]!;
    const rfq = ok(await call(api, `/v1/rfqs/${enc(first.id)}`), strict(endpoints.getRfq.response));
    expect(rfq).toEqual(first);
    const hidden = rfqs.find((r) => {
      const part = api.store.getPart(r.partId)!;
      return part.ipOwnerId !== acmeOrg && (!part.published || part.internal);
    });
    expect(hidden, "an RFQ on a part hidden from acme").toBeDefined();
    expect((await call(api, `/v1/rfqs/${enc(hidden!.id)}`)).status).toBe(404);
    const owner = api.accounts.find((a) => a.orgId === api.store.getPart(hidden!.partId)?.ipOwnerId)!;
    expect((await call(api, `/v1/rfqs/${enc(hidden!.id)}`, { token: owner.token })).status).toBe(200);
    expect(errorOf(await call(api, "/v1/rfqs/rfq-missing")).message).toBe('RFQ "rfq-missing" not found');
  });

  it("GET /v1/factories/{id}", async () => {
    for (const factory of api.store.factories()) {
      const got = ok(
        await call(api, `/v1/factories/${enc(factory.id)}`),
        strict(endpoints.getFactory.response),
      );
      expect(got).toEqual(factory);
    }
    expect((await call(api, "/v1/factories/fac-nope")).status).toBe(404);
  });
});

describe("reference data", () => {
  it("GET /v1/processes/{code} and /v1/materials/{code}", async () => {
    expect(ok(await call(api, "/v1/processes/cnc-milling"), strict(endpoints.getProcess.response))).toEqual({
      code: "cnc-milling",
      name: "CNC milling (3- and 5-axis)",
      materialType: "metal",
    });
    expect(ok(await call(api, "/v1/materials/in718"), strict(endpoints.getMaterial.response))).toMatchObject({
      code: "in718",
      type: "metal",
    });
    expect(errorOf(await call(api, "/v1/processes/nope")).message).toBe('process "nope" not found');
    expect(errorOf(await call(api, "/v1/materials/nope")).message).toBe('material "nope" not found');
  });

  it("GET /v1/standards/{code} with spaces and a slash in the code (one encoded segment)", async () => {
    const f3001 = ok(await call(api, "/v1/standards/ASTM%20F3001"), strict(endpoints.getStandard.response));
    expect(f3001).toMatchObject({ code: "ASTM F3001", governingBody: "ASTM", materialType: "metal" });
    const e8 = ok(await call(api, `/v1/standards/${enc("ASTM E8/E8M")}`), endpoints.getStandard.response);
    expect(e8.code).toBe("ASTM E8/E8M");
    // Unencoded, the slash makes another path: no such endpoint.
    expect((await call(api, "/v1/standards/ASTM%20E8/E8M")).status).toBe(404);
    expect((await call(api, `/v1/standards/${enc("ISO/ASTM 52900")}`)).status).toBe(200);
  });

  it("GET /v1/standards lists all, and filters by governingBody (any case) and materialType", async () => {
    const all = ok(await call(api, "/v1/standards"), strict(endpoints.listStandards.response)).items;
    expect(all).toEqual(api.store.standards());
    const astm = ok(
      await call(api, "/v1/standards?governingBody=astm"),
      endpoints.listStandards.response,
    ).items;
    expect(astm.length).toBeGreaterThan(5);
    expect(astm.every((s) => s.governingBody === "ASTM")).toBe(true);
    const polymer = ok(
      await call(api, "/v1/standards?materialType=polymer"),
      endpoints.listStandards.response,
    ).items;
    expect(polymer.length).toBeGreaterThan(0);
    expect(polymer.every((s) => s.materialType === "polymer")).toBe(true);
    const both = ok(
      await call(api, "/v1/standards?governingBody=DIN&materialType=sand"),
      endpoints.listStandards.response,
    ).items;
    expect(both.map((s) => s.code)).toEqual(["DIN EN 12890"]);
    expect(
      ok(await call(api, "/v1/standards?governingBody=NOPE"), endpoints.listStandards.response).items,
    ).toEqual([]);
    const bad = await call(api, "/v1/standards?materialType=plastic");
    expect(errorOf(bad).message).toBe(
      "materialType: must be one of metal, polymer, ceramic, composite, sand, wax, other",
    );
  });

  it("GET /v1/criticalities/{id}", async () => {
    const crit = ok(await call(api, "/v1/criticalities/crit-fsc"), strict(endpoints.getCriticality.response));
    expect(crit).toEqual({
      id: "crit-fsc",
      code: "FSC",
      name: "Flight safety critical part",
      governingBody: "FAA",
    });
    expect((await call(api, "/v1/criticalities/FSC")).status).toBe(404);
  });

  it("batch gets answer in the caller's order, once per entry, unknown entries simply absent", async () => {
    const standards = ok(
      await call(api, "/v1/standards:batch-get", {
        body: { codes: ["ISO 2768-1", "NOPE 1", "ASTM F3001", "ISO 2768-1", "ASTM E8/E8M"] },
      }),
      strict(endpoints.batchGetStandards.response),
    );
    expect(standards.items.map((s) => s.code)).toEqual(["ISO 2768-1", "ASTM F3001", "ASTM E8/E8M"]);
    const crits = ok(
      await call(api, "/v1/criticalities:batch-get", { body: { ids: ["crit-sc", "x", "crit-kc"] } }),
      strict(endpoints.batchGetCriticalities.response),
    );
    expect(crits.items.map((c) => c.id)).toEqual(["crit-sc", "crit-kc"]);
    const cats = ok(
      await call(api, "/v1/categories:batch-get", {
        body: { ids: ["cat-spinal-implants", "cat-medical", "zz"] },
      }),
      strict(endpoints.batchGetCategories.response),
    );
    expect(cats.items).toEqual([
      api.store.category("cat-spinal-implants"),
      {
        id: "cat-medical",
        name: "Medical devices",
        description: "Implants, instruments and their accessories",
      },
    ]);
    expect(cats.items[0]?.parentId).toBe("cat-implants");
    const empty = ok(
      await call(api, "/v1/categories:batch-get", { body: { ids: [] } }),
      endpoints.batchGetCategories.response,
    );
    expect(empty.items).toEqual([]);
  });

  it("batch gets accept at most 100 entries", async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `id-${i}`);
    expect(errorOf(await call(api, "/v1/criticalities:batch-get", { body: { ids } })).message).toBe(
      "ids: must have at most 100 entries",
    );
    expect((await call(api, "/v1/criticalities:batch-get", { body: { ids: ids.slice(1) } })).status).toBe(
      200,
    );
  });
});
