// search_parts, search_reference and did-you-mean through the real stack when the upstream lies
// or the catalogue is hostile: pages longer than asked, pages that shift, listings that never
// end, empty pages that say more follow, pages over the response limit, parts with huge
// descriptions. The answers stay correct (every part matches, none twice) or say clearly where
// they stop; memory stays within the index budget while pages are read; a failed search leaves
// nothing behind; concurrent searches share their reads.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { encodeCursor, searchDigest } from "../../src/search/cursor";
import { MAX_POSITION } from "../../src/search/part-index";
import { PartIndexes } from "../../src/search/part-indexes";
import { words } from "../../src/search/text";
import { searchableText } from "../../src/search/word-index";
import { connectInProcess, type InProcessServer } from "../support/in-process";
import { textOf } from "../support/mcp-server";

interface Found {
  items: { id: string; title: string }[];
  scanned: number;
  complete: boolean;
  nextCursor?: string;
  hint?: string;
}

const found = (result: CallToolResult): Found => {
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as unknown as Found;
};

/** Every part the demo token sees, in listing order, from the store: the ground truth. */
function visible(api: TestApi, token = api.demoToken): Part[] {
  const org = api.store.orgForToken(token);
  if (org === undefined) throw new Error("unknown token");
  return api.store.listed(org.id, undefined, 0, api.store.viewSize(org.id));
}

/** Whether every word of `text` starts a word of the part's searchable text. */
function hasWords(part: Part, text: string): boolean {
  const own = searchableText(part).flatMap((field) => (field === undefined ? [] : words(field)));
  return words(text).every((word) => own.some((w) => w.startsWith(word)));
}

/** Calls search_parts until complete (or no cursor), returning every item in order. */
async function searchAll(server: InProcessServer, args: Record<string, unknown>, maxCalls = 20) {
  const items: Found["items"] = [];
  let cursor: string | undefined;
  let last: Found | undefined;
  for (let calls = 0; calls < maxCalls; calls++) {
    last = found(await server.call("search_parts", { ...args, ...(cursor && { cursor }) }));
    items.push(...last.items);
    cursor = last.nextCursor;
    if (cursor === undefined) break;
  }
  return { items, last: last as Found };
}

const ids = (items: { id: string }[]) => items.map((item) => item.id);

/**
 * In-process servers on one embedded API started for the describe block (`options`): `open`
 * starts one, and each is closed, with the API's faults cleared, after every test.
 */
function serversOnOneApi(options: Parameters<typeof startTestApi>[0] = {}) {
  const servers: InProcessServer[] = [];
  const on = {
    api: undefined as unknown as TestApi,
    open: async (serverOptions: Parameters<typeof connectInProcess>[0] = {}) => {
      const server = await connectInProcess({ sharedApi: on.api, ...serverOptions });
      servers.push(server);
      return server;
    },
    listRequests: () => on.api.stats.requests("listParts"),
  };
  beforeAll(async () => {
    on.api = await startTestApi(options);
  });
  afterEach(async () => {
    on.api.faults.clear();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  afterAll(() => on.api?.close());
  return on;
}

describe("listings that lie (sample catalogue)", () => {
  const on = serversOnOneApi();
  const { open, listRequests } = on;

  it("pages longer than pageSize: every part found has the words, none twice, none missed (R7)", async () => {
    // What the same searches find when the listing tells the truth, on a server of its own.
    const honest = await open();
    const truth = new Map<string, string[]>();
    for (const text of ["bracket", "mount"]) {
      const { items } = await searchAll(honest, { text, limit: 50 });
      expect(items.length).toBeGreaterThan(visible(on.api).filter((part) => hasWords(part, text)).length - 1);
      truth.set(text, ids(items));
    }
    on.api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "oversized", extra: 30 } });
    const server = await open();
    for (const text of ["bracket", "mount"]) {
      const { items, last } = await searchAll(server, { text, limit: 50 });
      expect(last.complete).toBe(true);
      expect(ids(items)).toEqual(truth.get(text));
      // Each part found has the words, in its own text or its referenced records' names.
      for (const item of items) {
        const part = visible(on.api).find((each) => each.id === item.id) as Part;
        if (!hasWords(part, text)) expect((item as { matched?: string }).matched, item.id).toBeDefined();
      }
    }
    expect(textOf(await server.call("search_parts", {}))).not.toMatch(/Internal error|bug/);
  });

  it("pages that shift and repeat parts: each part once, every part there (R13)", async () => {
    on.api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "shift", by: 7 } });
    const server = await open();
    const { items, last } = await searchAll(server, { limit: 50 });
    expect(last.complete).toBe(true);
    expect(new Set(ids(items)).size).toBe(items.length);
    expect(new Set(ids(items))).toEqual(new Set(ids(visible(on.api))));
    const brackets = await searchAll(server, { text: "bracket", limit: 50 });
    expect(new Set(ids(brackets.items)).size).toBe(brackets.items.length);
  });

  it("empty pages that say more follow: stops at once, says so, and the next call costs nothing (R14)", async () => {
    on.api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "hollow", fromPage: 3 } });
    const server = await open();
    const before = listRequests();
    const first = found(await server.call("search_parts", { text: "no such word" }));
    expect(listRequests() - before).toBeLessThanOrEqual(2 + 8); // the two real pages, and those in flight
    expect(first).toMatchObject({ items: [], scanned: 100, complete: false });
    expect(first.nextCursor).toBeUndefined();
    expect(first.hint).toMatch(/empty page that said more parts follow/);
    const after = listRequests();
    const again = found(await server.call("search_parts", { text: "bracket" }));
    expect(listRequests()).toBe(after);
    expect(again.complete).toBe(false);
    expect(again.items.length).toBeGreaterThan(0);
    const reference = await server.call("search_reference", { kind: "material" });
    expect(reference.isError).toBeFalsy();
    expect(listRequests()).toBe(after);
  });

  it("search_reference with more codes than the reference cache holds: a repeat costs no request (R15)", async () => {
    const materials = new Set(visible(on.api).flatMap((part) => part.materialId ?? []));
    expect(materials.size).toBeGreaterThan(20);
    const server = await open({ cacheMaxEntries: 8 });
    const gets = () => on.api.stats.requests("getMaterial");
    let before = gets();
    const first = found(await server.call("search_reference", { kind: "material" }));
    expect(first.items.length).toBe(materials.size);
    expect(gets() - before).toBe(materials.size);
    before = gets();
    found(await server.call("search_reference", { kind: "material", text: "titanium" }));
    found(await server.call("search_reference", { kind: "material" }));
    expect(gets()).toBe(before);
  });

  it("concurrent identical lookups share one request though the reference cache is full (R15)", async () => {
    const server = await open({ cacheMaxEntries: 8 });
    found(await server.call("search_parts", { materialId: "ti64", processId: "sls" })); // the codes, without lookups
    for (const endpoint of ["getMaterial", "getProcess"] as const)
      on.api.faults.add({ endpoint, action: { kind: "latency", ms: 30 } });
    const lookups = () => on.api.stats.requests("getMaterial") + on.api.stats.requests("getProcess");
    const before = lookups();
    const kinds = ["material", "process", "material", "process"];
    const results = await Promise.all(kinds.map((kind) => server.call("search_reference", { kind })));
    for (const result of results) found(result);
    const codes = (field: "materialId" | "processId") =>
      new Set(visible(on.api).flatMap((part) => part[field] ?? [])).size;
    expect(lookups() - before).toBe(codes("materialId") + codes("processId"));
  });

  it("a cursor whose position bytes were rewritten is refused, at no request (R12)", async () => {
    const server = await open();
    const { nextCursor } = found(await server.call("search_parts", { text: "bracket", limit: 1 }));
    const bytes = Buffer.from(nextCursor as string, "base64url");
    bytes.writeUInt32BE(bytes.readUInt32BE(1) + 50, 1);
    const before = on.api.stats.requests();
    const forged = await server.call("search_parts", {
      text: "bracket",
      limit: 1,
      cursor: bytes.toString("base64url"),
    });
    expect(forged.isError).toBe(true);
    expect(textOf(forged)).toMatch(/altered/);
    expect(on.api.stats.requests()).toBe(before);
  });

  it("an endless listing ends the search with a clear word at the last position, never an internal error (R12)", async () => {
    on.api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "endless" } });
    const server = await open();
    const tokenHash = new PartIndexes(0, 1).tokenHash(on.api.demoToken);
    const key = searchDigest(tokenHash, { view: "ALL", filters: {}, readings: [["endless"]] });
    const cursor = encodeCursor(MAX_POSITION - 10, key);
    const result = await server.call("search_parts", { text: "endless", cursor });
    expect(textOf(result)).not.toMatch(/Internal error|bug/);
    const answer = found(result);
    expect(answer.nextCursor).toBeUndefined();
    expect(answer.hint).toMatch(/did not end/);
  });

  it("bounds the words one part adds to the index", async () => {
    const many = Array.from({ length: 90_000 }, (_, i) => `w${i.toString(36)}`).join(" ");
    await fetch(`${on.api.url}/v1/parts`, {
      method: "POST",
      headers: { authorization: `Bearer ${on.api.demoToken}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Wordy part", description: many }),
    });
    const server = await open();
    const result = found(await server.call("search_parts", { text: "wordy part" }));
    expect(result.items.map((item) => item.title)).toContain("Wordy part");
    // 90,000 distinct words would take about 7 MiB; a part's first 1,000 take under 0.1 MiB.
    expect(server.search.bytes).toBeLessThan(1024 * 1024);
  });
});

describe("parts with huge descriptions (R11, R2)", () => {
  let api: TestApi;
  let server: InProcessServer;
  const DESCRIPTION_BYTES = 450 * 1024;

  beforeAll(async () => {
    api = await startTestApi();
    server = await connectInProcess({ sharedApi: api });
    const create = (body: Record<string, unknown>) =>
      fetch(`${api.url}/v1/parts`, {
        method: "POST",
        headers: { authorization: `Bearer ${api.demoToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((response) => {
        if (!response.ok) throw new Error(`create failed: ${response.status}`);
      });
    // The 20 large parts must share one page of 50: fill the current last page first.
    const filler = (50 - (visible(api).length % 50)) % 50;
    for (let i = 0; i < filler; i++) await create({ title: `Filler part ${i}` });
    const padding = "titanium lattice fixture ".repeat(Math.ceil(DESCRIPTION_BYTES / 25));
    for (let i = 0; i < 20; i++) {
      await create({
        title: `Heavy part ${i}`,
        description: `zebrafinch heavy${i} ${padding}`,
        materialId: "ti64",
      });
    }
  });
  afterAll(async () => {
    await server?.close();
    await api?.close();
  });

  it("a listing page past the response limit is still searched, as smaller pages", async () => {
    const { items, last } = await searchAll(server, { text: "zebrafinch", limit: 50 });
    expect(last.complete).toBe(true);
    expect(items.map((item) => item.title).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `Heavy part ${i}`).sort(),
    );
    const reference = found(await server.call("search_reference", { kind: "material", text: "ti64" }));
    expect(reference.items.length).toBeGreaterThan(0);
    const missing = await server.call("get_material", { code: "ti65" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/did you mean/);
  });
});

describe("a part too large to receive even alone (R11)", () => {
  let api: TestApi;
  let server: InProcessServer;

  beforeAll(async () => {
    api = await startTestApi({ maxBodyBytes: 10 * 1024 * 1024 });
    server = await connectInProcess({ sharedApi: api });
    const huge = `giantpart ${"x".repeat(9 * 1024 * 1024)}`;
    const response = await fetch(`${api.url}/v1/parts`, {
      method: "POST",
      headers: { authorization: `Bearer ${api.demoToken}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Giant part", description: huge }),
    });
    expect(response.ok).toBe(true);
  });
  afterAll(async () => {
    await server?.close();
    await api?.close();
  });

  it("is left out, the rest of the listing is searched, and the answer says so", async () => {
    const { items, last } = await searchAll(server, { text: "bracket", limit: 50 });
    const expected = visible(api).filter((part) => part.title !== "Giant part" && hasWords(part, "bracket"));
    expect(ids(items)).toEqual(ids(expected));
    expect(last.complete).toBe(true);
    expect(last.hint).toMatch(/1 part was not searched/);
  });
});

describe("the index budget while pages are read, and what failures leave (large catalogue)", () => {
  const on = serversOnOneApi({ catalogue: "large", largeCatalogueSize: 5_000 });
  const { open, listRequests } = on;

  it("an index that would exceed the budget stops growing while it is read, and the search says so (R2)", async () => {
    const budget = 1024 * 1024;
    const server = await open({ searchIndexBytes: budget, searchPagesPerCall: 200 });
    let most = 0;
    const result = await server.client.callTool(
      { name: "search_parts", arguments: { text: "no such word" } },
      {
        onprogress: () => {
          most = Math.max(most, server.search.bytes);
        },
      },
    );
    const answer = found(result as CallToolResult);
    most = Math.max(most, server.search.bytes);
    expect(most).toBeGreaterThan(budget / 2);
    expect(most).toBeLessThanOrEqual(budget);
    expect(answer.complete).toBe(false);
    expect(answer.nextCursor).toBeUndefined();
    expect(answer.hint).toMatch(/memory budget/);
    expect(answer.scanned).toBeGreaterThan(0);
    expect(answer.scanned).toBeLessThan(200 * 50);
  });

  it("indexes read at the same time share the budget: it holds for all of them together (R2)", async () => {
    const budget = 1024 * 1024;
    const server = await open({ searchIndexBytes: budget, searchPagesPerCall: 100 });
    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, server.search.bytes);
    }, 2);
    try {
      const results = await Promise.all(
        [undefined, "IP_OWNER", "CONSUMER"].map((view) =>
          server.call("search_parts", { text: "no such word", ...(view && { view }) }),
        ),
      );
      for (const result of results) {
        const answer = found(result);
        if (!answer.complete && answer.nextCursor === undefined) expect(answer.hint).toMatch(/memory budget/);
      }
    } finally {
      clearInterval(sampler);
    }
    most = Math.max(most, server.search.bytes);
    expect(most).toBeGreaterThan(budget / 2);
    expect(most).toBeLessThanOrEqual(budget);
  });

  it("a search with a token the API refuses leaves nothing behind (R3)", async () => {
    const server = await open({ token: "pat_not_a_real_token" });
    for (const text of ["bracket", "gyroid"]) {
      const result = await server.call("search_parts", { text });
      expect(result.isError).toBe(true);
    }
    expect(server.search.bytes).toBe(0);
  });

  it("an index is released when its time is up, untouched (R3)", async () => {
    const server = await open({ cacheTtlMs: 400, searchPagesPerCall: 4 });
    found(await server.call("search_parts", { text: "bracket" }));
    expect(server.search.bytes).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(server.search.bytes).toBe(0);
  });

  it("four concurrent cold search_reference calls read the pages once (R6)", async () => {
    const server = await open({ searchPagesPerCall: 40 });
    const before = listRequests();
    const results = await Promise.all(
      ["material", "process", "criticality", "category"].map((kind) =>
        server.call("search_reference", { kind }),
      ),
    );
    for (const result of results) expect(result.isError, textOf(result)).toBeFalsy();
    expect(listRequests() - before).toBeLessThanOrEqual(40 + 8);
  });

  it("four concurrent cold search_parts with a filter read the pages once (R6)", async () => {
    const server = await open({ searchPagesPerCall: 40 });
    on.api.faults.add({ endpoint: "getMaterial", action: { kind: "latency", ms: 30 } });
    const before = listRequests();
    const results = await Promise.all(
      [0, 1, 2, 3].map(() => server.call("search_parts", { materialId: "ti64", text: "no such word" })),
    );
    for (const result of results) found(result);
    expect(listRequests() - before).toBeLessThanOrEqual(40 + 8);
  });

  it("did-you-mean for many unknown codes in one preview_part shares one scan (R6)", async () => {
    const server = await open();
    const before = listRequests();
    const unknown = (prefix: string) => Array.from({ length: 20 }, (_, i) => `${prefix}-nope-${i}`);
    const result = await server.call("preview_part", {
      title: "Draft",
      criticalityIds: unknown("crit"),
      categoryIds: unknown("cat"),
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(listRequests() - before).toBeLessThanOrEqual(20 + 8);
  });

  it("lists every unknown code of a draft, and gives a did-you-mean to 30 of them at most", async () => {
    const server = await open();
    // Each a few characters from cat-brackets, so each would get one.
    const categoryIds = Array.from({ length: 40 }, (_, i) => `cat-brackets-${i}`);
    const result = await server.call("preview_part", { title: "Draft", categoryIds });
    expect(result.isError, textOf(result)).toBeFalsy();
    const listed = (result.structuredContent as { unknown: { didYouMean?: string }[] }).unknown;
    expect(listed).toHaveLength(40);
    expect(listed.filter((entry) => entry.didYouMean?.includes("cat-brackets")).length).toBe(30);
  });

  it("refuses code arrays past their limit before any request (R6)", async () => {
    const server = await open();
    const before = on.api.stats.requests();
    const codes = Array.from({ length: 101 }, (_, i) => `std-${i}`);
    for (const tool of ["preview_part", "create_part"]) {
      const result = await server.call(tool, { title: "Draft", standardIds: codes });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/100/);
    }
    expect(on.api.stats.requests()).toBe(before);
  });
});
