// search_parts and search_reference on the sample data, over real HTTP to the embedded API: the
// questions of issue 16 in one call each, per-token indexes, cursors that another process
// continues, and refusals that cost no request.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { SearchRefusal } from "../../src/search";
import { encodeCursor, searchDigest } from "../../src/search/cursor";
import { PAGE_SIZE, PAGE_SPAN } from "../../src/search/part-index";
import { PartIndexes } from "../../src/search/part-indexes";
import type { ToolContext } from "../../tools/define";
import { listStandards } from "../../tools/reference";
import { searchParts, searchReference } from "../../tools/search";
import { callWith, everyPart, type Replica, replica, withoutCounts } from "./support";

let api: TestApi;
let first: Replica;
let second: Replica;
let acmeParts: Part[];

const listRequests = () => api.stats.requests("listParts");
const ids = (items: { id: string }[]) => items.map((item) => item.id);
const context = (r: Replica, token?: string): ToolContext => ({
  api: r.client,
  reference: r.reference,
  search: r.search,
  call: callWith(token),
});

beforeAll(async () => {
  api = await startTestApi();
  first = replica(api);
  second = replica(api);
  acmeParts = await everyPart(first.client, callWith());
});

afterAll(async () => {
  await first?.close();
  await second?.close();
  await api?.close();
});

describe("search_reference", () => {
  it.each([
    ["F3001", "ASTM F3001"],
    ["astm f3001", "ASTM F3001"],
    ["ASTM F3001-14", "ASTM F3001"],
    ["ASTM E8", "ASTM E8/E8M"],
    ["AMS4928", "AMS 4928"],
    ["SAE AMS 4928", "AMS 4928"],
    ["ISO 13485:2016", "ISO 13485"],
  ])("finds the standard %s as %s first", async (text, code) => {
    const result = await first.search.searchReference("standard", text, callWith());
    expect(result.items[0]?.code).toBe(code);
    expect(result.complete).toBe(true);
  });

  it("learns processes, materials, criticalities and categories from the parts, as full records", async () => {
    const call = callWith();
    const material = await first.search.searchReference("material", "Ti-6Al-4V", call);
    expect(material.items[0]).toEqual({ code: "ti64", name: "Ti-6Al-4V (Grade 5)", type: "metal" });
    // The API cannot list materials: the answer says what it covers instead of claiming completeness.
    expect(material).toMatchObject({ complete: false, coverage: "seen on parts" });
    expect(material.hint).toMatch(/known only from the parts.*get_material/);
    expect((await first.search.searchReference("process", "SLS", call)).items[0]?.code).toBe("sls");
    expect((await first.search.searchReference("criticality", "CLASS-IIA", call)).items[0]?.id).toBe(
      "crit-class-iia",
    );
    expect((await first.search.searchReference("category", "brackets", call)).items[0]?.id).toBe(
      "cat-brackets",
    );
    const all = await first.search.searchReference("material", undefined, call);
    const onParts = new Set(acmeParts.flatMap((p) => p.materialId ?? []));
    expect(all.items.map((m) => m.code).sort()).toEqual([...onParts].sort());
  });
});

describe("search_parts on the sample data", () => {
  it("answers a material filter completely in one call, and a repeat costs no request", async () => {
    const before = listRequests();
    const result = await first.search.searchParts({ materialId: "ti64", limit: 50 }, callWith());
    const expected = acmeParts.filter((p) => p.materialId === "ti64");
    expect(result).toMatchObject({ complete: true, scanned: acmeParts.length });
    expect(result.nextCursor).toBeUndefined();
    expect(ids(result.items)).toEqual(ids(expected));
    expect(result.items[0]).toEqual(summaryOf(expected[0] as Part));
    const after = listRequests();
    expect(after - before).toBeLessThanOrEqual(10); // 4 pages, and a few read past the end at once
    await first.search.searchParts({ materialId: "ti64", text: "bracket" }, callWith());
    expect(listRequests()).toBe(after);
  });

  it("cuts a long title in a summary, never inside a character, and get_part keeps it whole", async () => {
    const own = await startTestApi();
    const r = replica(own);
    try {
      // The cut falls between the two halves of the emoji's surrogate pair.
      const title = `Longtitle probe ${"é".repeat(182)}😀${"z".repeat(5_000)}`;
      const created = await r.client.call("createPart", { body: { title } }, callWith());
      const [summary] = (await r.search.searchParts({ text: "longtitle probe" }, callWith())).items;
      expect(summary?.id).toBe(created.id);
      expect(summary?.title).toBe(`${title.slice(0, 198)}…`);
      expect(/\p{Cs}/u.test(summary?.title ?? "")).toBe(false);
      expect((await r.client.call("getPart", { params: { id: created.id } }, callWith())).title).toBe(title);
    } finally {
      await r.close();
      await own.close();
    }
  });

  it("finds the engine mount brackets, all of them", async () => {
    const result = await first.search.searchParts({ text: "engine mount bracket", limit: 50 }, callWith());
    const expected = acmeParts.filter((p) => p.title.startsWith("Engine mount bracket"));
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(result.items)).toEqual(ids(expected));
    expect(result.complete).toBe(true);
  });

  it("matches fragments of every text field, ignoring case, accents and punctuation", async () => {
    const part = acmeParts.find((p) => p.externalRef && p.description && p.versionName) as Part;
    const [titleWord] = part.title.split(" ") as [string];
    for (const text of [
      part.serialId.toLowerCase().replaceAll("-", " "),
      `(${part.externalRef})`,
      `${titleWord.toUpperCase().replace("E", "É")} ${part.keywords[0]} ${part.versionName}`,
      part.description?.split(" ").slice(1, 3).join(" ") as string,
    ]) {
      const result = await first.search.searchParts({ text, limit: 50 }, callWith());
      expect(ids(result.items), text).toContain(part.id);
    }
  });

  it.each([
    ["processId", "processId"],
    ["standardId", "standardIds"],
    ["criticalityId", "criticalityIds"],
    ["categoryId", "categoryIds"],
  ] as const)("answers %s completely in one call, with every view", async (filter, field) => {
    const code = acmeParts.flatMap((p) => p[field] ?? []).at(-1) as string;
    for (const view of [undefined, "IP_OWNER", "CONSUMER"] as const) {
      const parts = view === undefined ? acmeParts : await everyPart(first.client, callWith(), view);
      const expected = parts.filter((p) => [p[field]].flat().includes(code)).slice(0, 50);
      const result = await first.search.searchParts({ [filter]: code, limit: 50, view }, callWith());
      expect(ids(result.items)).toEqual(ids(expected));
      expect(result.complete || result.items.length === 50).toBe(true);
    }
  });

  it("combines filters with AND, and answers an empty search with everything", async () => {
    const result = await first.search.searchParts(
      { materialId: "ti64", processId: "ebm", limit: 50 },
      callWith(),
    );
    expect(ids(result.items)).toEqual(
      ids(acmeParts.filter((p) => p.materialId === "ti64" && p.processId === "ebm")),
    );
    const everything = await first.search.searchParts({}, callWith());
    expect(ids(everything.items)).toEqual(ids(acmeParts.slice(0, 20)));
    expect(everything.complete).toBe(false);
  });

  it("gives a correct empty answer for a known code on no part", async () => {
    const unused = api.store.materials().find((m) => !acmeParts.some((p) => p.materialId === m.code));
    const code = unused?.code as string;
    const result = await first.search.searchParts({ materialId: code }, callWith());
    expect(result).toMatchObject({ items: [], scanned: acmeParts.length, complete: true });
    // The empty answer says why: the filter, not a claim that the search found nothing related.
    expect(result.hint).toContain(`materialId ${code}: no part has it`);
  });

  it("refuses an unknown code, naming the closest ones", async () => {
    const refusal = first.search.searchParts({ materialId: "Ti-6Al-4V" }, callWith());
    await expect(refusal).rejects.toThrow(SearchRefusal);
    await expect(refusal).rejects.toThrow(/materialId "Ti-6Al-4V" is not a material code.*did you mean ti64/);
  });
});

describe("per-token indexes", () => {
  it("never serve one token's parts to another", async () => {
    const borealis = api.accounts[1]?.token as string;
    const acmeOwn = await first.search.searchParts({ view: "IP_OWNER", limit: 50 }, callWith());
    const before = listRequests();
    const borealisOwn = await first.search.searchParts({ view: "IP_OWNER", limit: 50 }, callWith(borealis));
    expect(listRequests()).toBeGreaterThan(before);
    expect(ids(borealisOwn.items)).toEqual(
      ids(await everyPart(first.client, callWith(borealis), "IP_OWNER")).slice(0, 50),
    );
    expect(ids(borealisOwn.items).some((id) => ids(acmeOwn.items).includes(id))).toBe(false);
  });

  it("are not put back by a search that started before they were dropped", async () => {
    const indexes = new PartIndexes(60_000, 1024 * 1024);
    const reading = indexes.held("token", "ALL");
    await indexes.reading("token", "ALL", reading, async () => {
      reading.index.addPage(1, acmeParts.slice(0, 50), true);
      indexes.forget("token"); // a create_part, meanwhile
    });
    expect(indexes.peek("token", "ALL")).toBeUndefined();
    const fresh = indexes.held("token", "ALL");
    await indexes.reading("token", "ALL", fresh, async () =>
      fresh.index.addPage(1, acmeParts.slice(0, 50), true),
    );
    expect(indexes.peek("token", "ALL")?.index).toBe(fresh.index);
  });
});

describe("cursors", () => {
  it("are continued by another process, which returns the same items", async () => {
    const args = { text: "bracket", limit: 3 };
    const page1 = await first.search.searchParts(args, callWith());
    expect(page1.nextCursor).toBeDefined();
    const page2Here = await first.search.searchParts({ ...args, cursor: page1.nextCursor }, callWith());
    const before = listRequests();
    const page2There = await second.search.searchParts({ ...args, cursor: page1.nextCursor }, callWith());
    expect(listRequests()).toBeGreaterThan(before);
    expect(withoutCounts(page2There)).toEqual(withoutCounts(page2Here));
    const all = await first.search.searchParts({ text: "bracket", limit: 50 }, callWith());
    expect([...ids(page1.items), ...ids(page2Here.items)]).toEqual(ids(all.items).slice(0, 6));
  });

  it("of a ranked answer go on after the last part shown: a part added before it shifts nothing", async () => {
    const own = await startTestApi();
    const here = replica(own);
    const there = replica(own);
    try {
      // 25 parts say "housing"; 18 more are in a category named so, and rank after them.
      const args = { text: "housing", limit: 30 };
      const page1 = await here.search.searchParts(args, callWith());
      expect(page1.items.at(-1)?.matched).toMatch(/^category /);
      const page2 = await here.search.searchParts({ ...args, cursor: page1.nextCursor }, callWith());
      expect(page2).toMatchObject({ complete: true, total: 43 });
      expect(ids(page2.items)).toHaveLength(13);
      // A part that ranks first, made between the two pages, read by a process that reads afresh.
      const made = await here.client.call("createPart", { body: { title: "Housing probe" } }, callWith());
      const page2There = await there.search.searchParts({ ...args, cursor: page1.nextCursor }, callWith());
      expect(ids(page2There.items)).toEqual(ids(page2.items));
      expect(page2There.total).toBe(44);
      const afresh = await there.search.searchParts(args, callWith());
      expect(ids(afresh.items)).toContain(made.id);
    } finally {
      await here.close();
      await there.close();
      await own.close();
    }
  });

  it("at the end of the listing complete the search on a process that has read nothing", async () => {
    const tokenHash = createHash("sha256").update(api.demoToken).digest("base64url");
    const digest = searchDigest(tokenHash, { view: "ALL", filters: {}, readings: [["bracket"]] });
    const fresh = replica(api);
    try {
      // The listing's end as a position: each page spans PAGE_SPAN positions, the last one partly.
      const lastPage = Math.ceil(acmeParts.length / PAGE_SIZE);
      const end = (lastPage - 1) * PAGE_SPAN + acmeParts.length - (lastPage - 1) * PAGE_SIZE;
      const cursor = encodeCursor(end, digest);
      const result = await fresh.search.searchParts({ text: "bracket", cursor }, callWith());
      expect(result).toMatchObject({ items: [], scanned: acmeParts.length, complete: true });
      expect(result.hint).toMatch(/^No further part matches/);
    } finally {
      await fresh.close();
    }
  });

  it("are refused for other filters, another view or another token, and reveal nothing", async () => {
    const { nextCursor } = await first.search.searchParts({ text: "bracket", limit: 1 }, callWith());
    const cursor = nextCursor as string;
    expect(cursor).not.toContain(api.demoToken.slice(0, 8));
    expect(Buffer.from(cursor, "base64url").toString("latin1")).not.toMatch(/pat_|demo|acme|bracket/);
    const before = api.stats.requests();
    for (const [args, token] of [
      [{ text: "mount", cursor }, undefined],
      [{ text: "bracket", materialId: "ti64", cursor }, undefined],
      [{ text: "bracket", view: "IP_OWNER" as const, cursor }, undefined],
      [{ text: "bracket", cursor }, api.accounts[2]?.token],
    ] as const) {
      await expect(first.search.searchParts(args, callWith(token))).rejects.toThrow(
        /cursor belongs to another search/,
      );
    }
    await expect(
      first.search.searchParts({ text: "bracket", cursor: "garbage" }, callWith()),
    ).rejects.toThrow(/not one this server made/);
    expect(api.stats.requests()).toBe(before);
  });
});

describe("the tools", () => {
  it("refuse bad input before any request", () => {
    const input = searchParts.input.strict();
    for (const bad of [
      { limit: 0 },
      { limit: 51 },
      { text: "x".repeat(10_000) },
      { cursor: "c".repeat(65) },
    ]) {
      expect(input.safeParse(bad).success).toBe(false);
    }
    const long = input.safeParse({ text: "x".repeat(10_000) });
    expect(long.error?.issues[0]?.message).toMatch(/at most 200 characters/);
    expect(input.safeParse({}).success).toBe(true);
    expect(searchReference.input.strict().safeParse({ kind: "materials" }).success).toBe(false);
  });

  it("answer through their handlers", async () => {
    const parts = await searchParts.handler(searchParts.input.parse({ materialId: "ti64" }), context(first));
    expect(parts.items.length).toBeGreaterThan(0);
    const standards = await searchReference.handler({ kind: "standard", text: "AMS4928" }, context(first));
    expect(standards.items[0]).toMatchObject({ code: "AMS 4928" });
  });

  it("list_standards reads a known governing body in any case, and names the valid ones otherwise", async () => {
    const astm = await listStandards.handler({ governingBody: "astm" }, context(first));
    expect(astm.items.length).toBeGreaterThan(0);
    await expect(listStandards.handler({ governingBody: "SAE AMS" }, context(first))).rejects.toThrow(
      /governing bodies are ASTM, DIN, ISO, MIL, SAE/,
    );
  });

  it("report progress while reading pages", async () => {
    const fresh = replica(api);
    try {
      const seen: [number, number | undefined][] = [];
      const ctx = { ...context(fresh), progress: (done: number, total?: number) => seen.push([done, total]) };
      await searchParts.handler({ text: "zzz" }, ctx);
      expect(seen.length).toBeGreaterThan(1);
      expect(seen.map(([done]) => done)).toEqual(
        [...new Set(seen.map(([done]) => done))].sort((a, b) => a - b),
      );
      expect(seen.at(-1)).toEqual([acmeParts.length, acmeParts.length]);
    } finally {
      await fresh.close();
    }
  });
});

function summaryOf(part: Part) {
  const { id, title, versionName, serialId, processId, materialId, standardIds, published } = part;
  return Object.fromEntries(
    Object.entries({
      id,
      title,
      versionName,
      serialId,
      processId,
      materialId,
      standardIds,
      published,
    }).filter(([, value]) => value !== undefined),
  );
}
