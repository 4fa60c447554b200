// Finding things through the real stack, in both protocol eras: search_parts and search_reference
// against what the API itself lists, cursors that a second server process continues, progress
// while a search reads the 100,000-part catalogue, and bad input refused before any request.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { connectInProcess, ERAS, everyVisiblePart, type InProcessServer } from "../support/in-process";
import { textOf } from "../support/mcp-server";

interface Found {
  items: { id: string; title: string; materialId?: string }[];
  scanned: number;
  complete: boolean;
  nextCursor?: string;
}

const found = (result: CallToolResult) => {
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as unknown as Found;
};

describe.each(ERAS)("search (%s era)", (era) => {
  let api: TestApi;
  let server: InProcessServer;
  /** Every part the demo token sees, read page by page with list_parts: the ground truth. */
  let visible: Part[];

  beforeAll(async () => {
    api = await startTestApi();
    server = await connectInProcess({ era, sharedApi: api });
    visible = await everyVisiblePart(server);
  });
  afterAll(async () => {
    await server?.close();
    await api?.close();
  });

  it("answers 'which parts are made of Ti-6Al-4V' in two calls, completely", async () => {
    const material = (await server.call("search_reference", { kind: "material", text: "Ti-6Al-4V" }))
      .structuredContent as { items: { code: string }[] };
    const code = material.items[0]?.code;
    expect(code).toBe("ti64");
    const result = found(await server.call("search_parts", { materialId: code, limit: 50 }));
    expect(result.complete).toBe(true);
    expect(result.scanned).toBe(visible.length);
    const expected = visible.filter((part) => part.materialId === code).map((part) => part.id);
    expect(result.items.map((item) => item.id).sort()).toEqual(expected.sort());
  });

  it("finds 'the part titled engine mount bracket' in one call, and the next search costs no request", async () => {
    const result = found(await server.call("search_parts", { text: "engine mount bracket" }));
    const words = ["engine", "mount", "bracket"];
    const expected = visible.filter((part) => words.every((word) => part.title.toLowerCase().includes(word)));
    expect(expected.length).toBeGreaterThan(0);
    for (const part of expected) expect(result.items.map((item) => item.id)).toContain(part.id);
    const before = api.stats.requests("listParts");
    found(await server.call("search_parts", { text: "bracket" }));
    expect(api.stats.requests("listParts")).toBe(before);
  });

  it("finds 'parts made of Ti-6Al-4V' by the material's name, both grades, each saying through which", async () => {
    const result = found(
      await server.call("search_parts", { text: "parts made of Ti-6Al-4V", limit: 50 }),
    ) as Found & {
      items: { matched?: string }[];
    };
    expect(result.complete).toBe(true);
    const made = visible.filter((part) => part.materialId === "ti64" || part.materialId === "ti64-eli");
    expect(new Set(made.map((part) => part.materialId)).size).toBe(2);
    const foundIds = result.items.map((item) => item.id);
    for (const part of made) expect(foundIds).toContain(part.id);
    // An item whose own text lacks the words says which record matched them.
    for (const item of result.items) {
      const part = visible.find((each) => each.id === item.id) as Part;
      const own = [part.title, part.description ?? "", ...part.keywords].join(" ").toLowerCase();
      if (!own.includes("6al")) expect(item.matched, item.id).toMatch(/^(material|standard) /);
    }
    // A filter takes several codes: the same parts as the two searches by one code each.
    const both = found(await server.call("search_parts", { materialId: ["ti64", "ti64-eli"], limit: 50 }));
    expect(both.items.map((item) => item.id).sort()).toEqual(made.map((part) => part.id).sort());
  });

  it("finds the standard an engineer's fragment means, first", async () => {
    for (const [fragment, code] of [
      ["F3001", "ASTM F3001"],
      ["astm f3001", "ASTM F3001"],
      ["ASTM F3001-14", "ASTM F3001"],
      ["ASTM E8", "ASTM E8/E8M"],
      ["AMS4928", "AMS 4928"],
      ["SAE AMS 4928", "AMS 4928"],
      ["ISO 13485:2016", "ISO 13485"],
    ]) {
      const result = (await server.call("search_reference", { kind: "standard", text: fragment }))
        .structuredContent as { items: { code: string }[] };
      expect(result.items[0]?.code, fragment).toBe(code);
    }
  });

  it("continues a search on a second server process with no index, with the same items", async () => {
    const first = await connectInProcess({ era, sharedApi: api, searchPagesPerCall: 2 });
    const second = await connectInProcess({ era, sharedApi: api, searchPagesPerCall: 2 });
    try {
      const start = found(await first.call("search_parts", { text: "bracket", limit: 5 }));
      expect(start.nextCursor).toBeTruthy();
      const here = found(
        await first.call("search_parts", { text: "bracket", limit: 5, cursor: start.nextCursor }),
      );
      const there = found(
        await second.call("search_parts", { text: "bracket", limit: 5, cursor: start.nextCursor }),
      );
      // The same items; how far each read beyond them depends on its own pages-per-call budget.
      expect(there.items).toEqual(here.items);
      expect(there.complete).toBe(here.complete);
      // The cursor is bound to its search: other filters, and garbage, are refused.
      const other = await second.call("search_parts", { text: "housing", cursor: start.nextCursor });
      expect(other.isError).toBe(true);
      expect(textOf(other)).toMatch(/cursor/i);
      const garbage = await second.call("search_parts", { text: "bracket", cursor: "not-a-cursor" });
      expect(garbage.isError).toBe(true);
      // It reveals nothing of the token.
      const cursor = start.nextCursor as string;
      expect(Buffer.from(cursor, "base64url").toString("latin1")).not.toContain(api.demoToken);
      expect(cursor).not.toContain(api.demoToken);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("refuses bad input before any request, and answers an empty search", async () => {
    const before = api.stats.requests();
    for (const args of [{ limit: 0 }, { limit: 51 }, { text: "x".repeat(10_000) }, { view: "ALL" }]) {
      const result = await server.call("search_parts", args);
      expect(result.isError, JSON.stringify(args).slice(0, 40)).toBe(true);
      expect(textOf(result)).toMatch(/Invalid arguments for search_parts/);
    }
    expect(api.stats.requests()).toBe(before);
    const unknown = await server.call("search_parts", { materialId: "PA-12" });
    expect(textOf(unknown)).toMatch(/did you mean pa12/);
    expect(found(await server.call("search_parts", {})).items.length).toBeGreaterThan(0);
  });

  // Last: it adds a part to the API the other tests compare with.
  it("shows a part whose create_part answer was lost in the next search, as the error says to look", async () => {
    found(await server.call("search_parts", { text: "bracket" })); // this token's index is complete
    // A create the API refused did nothing: the index stays, and the next search reads no page.
    const refused = await server.call("create_part", { title: "Refused", materialId: "no-such-material" });
    expect(refused.isError).toBe(true);
    const pagesRead = api.stats.requests("listParts");
    found(await server.call("search_parts", { text: "bracket" }));
    expect(api.stats.requests("listParts")).toBe(pagesRead);
    const title = `Lost answer flange ${era}`;
    api.faults.add({
      endpoint: "createPart",
      action: { kind: "malformed", variant: "reset-mid-body" },
      times: 1,
    });
    try {
      const created = await server.call("create_part", { title });
      expect(created.isError).toBe(true);
      expect(textOf(created)).toMatch(
        /may or may not have taken effect, so check \(for a part, search_parts by its title\)/,
      );
    } finally {
      api.faults.clear();
    }
    const result = found(await server.call("search_parts", { text: title }));
    expect(result.items.map((item) => item.title)).toEqual([title]);
  });
});

describe.each(ERAS)("a search over the 100,000-part catalogue (%s era)", (era) => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await connectInProcess({ era, api: { catalogue: "large" }, timeoutMs: 30_000 });
  }, 30_000);
  afterAll(() => server?.close());

  it("reads a bounded number of pages a call, reports progress, and says how far it got", async () => {
    const progress: { progress: number; total?: number }[] = [];
    const result = (await server.client.callTool(
      { name: "search_parts", arguments: { text: "no such word anywhere" } },
      { onprogress: (update) => progress.push(update), timeout: 30_000 },
    )) as CallToolResult;
    const first = found(result);
    expect(first.complete).toBe(false);
    expect(first.scanned).toBe(25_000);
    expect(first.nextCursor).toBeTruthy();
    // Parts scanned as pages arrive (the API does not say how many there are until the last page).
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((update) => update.progress)).toEqual(
      [...progress.map((u) => u.progress)].sort((a, b) => a - b),
    );
    expect(progress.at(-1)?.progress).toBe(25_000);
  }, 30_000);
});
