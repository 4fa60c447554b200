// resolve_parts and compare_parts through the real stack, in both protocol eras: SDK Client →
// server from source → HTTP → the embedded API's sample data. The pasted list is made from the
// parts the API lists (serial ids, external references, ids, titles with typos, one version
// named), so every expectation comes from the data, not from this file.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import type { Comparison } from "../../src/compare/compare";
import type { ResolvedList } from "../../src/resolve/list";
import { connectInProcess, ERAS, everyVisiblePart, type InProcessServer } from "../support/in-process";
import { textOf } from "../support/mcp-server";

const encoder = new Tiktoken(o200k);
const tokens = (text: string) => encoder.encode(text).length;

let server: InProcessServer;
let parts: Part[];

function ok<T>(result: CallToolResult): T {
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as T;
}

/** One typo in the title's longest word without digits: two letters swapped in its middle. */
function withTypo(title: string): string {
  const word = title
    .split(/[\s,]+/)
    .filter((w) => /^\p{L}{6,}$/u.test(w))
    .sort((a, b) => b.length - a.length)[0];
  if (!word) return title;
  const at = Math.floor(word.length / 2);
  const typo = word.slice(0, at) + (word[at + 1] as string) + (word[at] as string) + word.slice(at + 2);
  return title.replace(word, typo);
}

interface Expected {
  line: string;
  id: string;
  quantity?: number;
}

/** Twenty lines as a buyer pastes them, each naming one part of the catalogue. */
function pastedList(): Expected[] {
  const titleCount = new Map<string, number>();
  for (const part of parts) titleCount.set(part.title, (titleCount.get(part.title) ?? 0) + 1);
  const unique = parts.filter((part) => titleCount.get(part.title) === 1);
  const withRef = parts.filter((part) => part.externalRef !== undefined);
  // A part with versions: its Rev B, named by title and version.
  const revB = parts.find(
    (part) => part.versionName === "Rev B" && parts.filter((p) => p.title === part.title).length >= 2,
  ) as Part;
  const pick = (list: Part[], n: number, from: number) => list.slice(from, from + n);
  const lines: Expected[] = [];
  const [s1, s2, s3] = pick(parts, 3, 10);
  lines.push({ line: `2x ${s1?.serialId}`, id: s1?.id as string, quantity: 2 });
  lines.push({ line: `${s2?.serialId} - 4 pcs`, id: s2?.id as string, quantity: 4 });
  lines.push({ line: `qty 10 ${s3?.serialId}`, id: s3?.id as string, quantity: 10 });
  for (const [i, part] of pick(withRef, 3, 20).entries()) {
    lines.push({ line: `${part.externalRef}\t${i + 5}`, id: part.id, quantity: i + 5 });
  }
  const [d1, d2] = pick(parts, 2, 40);
  lines.push({ line: d1?.id as string, id: d1?.id as string });
  lines.push({ line: `1 x ${d2?.id}`, id: d2?.id as string, quantity: 1 });
  const titled = pick(unique, 11, 0);
  titled.forEach((part, i) => {
    if (i < 5) lines.push({ line: `${i + 2} pcs ${withTypo(part.title)}`, id: part.id, quantity: i + 2 });
    else if (i < 8)
      lines.push({ line: `${part.title.toLowerCase()}, qty ${i * 3}`, id: part.id, quantity: i * 3 });
    else lines.push({ line: part.title.replace(/,/g, ""), id: part.id });
  });
  lines.push({ line: `3x ${revB.title} Rev B`, id: revB.id, quantity: 3 });
  return lines.slice(0, 20);
}

describe.each(ERAS)("a pasted list and a comparison (%s era)", (era) => {
  beforeAll(async () => {
    server = await connectInProcess({ era });
    parts = await everyVisiblePart(server);
  });
  afterAll(() => server?.close());

  it("resolves a 20-line list with quantities, typos and one version named, in one call, every line right", async () => {
    const expected = pastedList();
    expect(expected).toHaveLength(20);
    const partReads = server.api.stats.requests("getPart");
    const result = await server.call("resolve_parts", { lines: expected.map((each) => each.line) });
    const { items, complete } = ok<ResolvedList>(result);
    expect(complete).toBe(true);
    const wrong = items.filter(
      (item, i) =>
        item.status !== "match" ||
        item.part?.id !== expected[i]?.id ||
        item.quantity !== expected[i]?.quantity,
    );
    expect(wrong).toEqual([]);
    expect(items.map((item) => item.line)).toEqual(expected.map((each) => each.line));
    expect(items.slice(0, 3).every((item) => item.matchedBy === "serialId" && item.confidence === 1)).toBe(
      true,
    );
    expect(items.slice(3, 6).every((item) => item.matchedBy === "externalRef" && item.confidence === 1)).toBe(
      true,
    );
    expect(items.slice(6, 8).every((item) => item.matchedBy === "id" && item.confidence === 1)).toBe(true);
    expect(items.slice(8).every((item) => item.confidence < 1)).toBe(true);
    expect(items.at(-1)?.part?.versionName).toBe("Rev B");
    // The text: a count, then one line per input line, each within about 60 tokens.
    const text = textOf(result).split("\n");
    expect(text[0]).toBe("20 lines: 20 match, 0 ambiguous, 0 none.");
    expect(text).toHaveLength(21);
    for (const line of text.slice(1)) expect(tokens(line), line).toBeLessThanOrEqual(60);
    // Parts are read by id only for ids and external references (the search reads the pages
    // and the records it matches words with, as it does for search_parts).
    expect(server.api.stats.requests("getPart") - partReads).toBeLessThanOrEqual(8);
    // Warm, the same list again reads nothing but those parts.
    const before = server.api.stats.requests();
    ok(await server.call("resolve_parts", { lines: expected.map((each) => each.line) }));
    expect(server.api.stats.requests() - before).toBeLessThanOrEqual(8);
  });

  it("says which lines are ambiguous (versions, best first, at most 3) and which match nothing, and why", async () => {
    const versioned = parts.find((part) => part.versionName === "Rev C") as Part;
    const { items } = ok<ResolvedList>(
      await server.call("resolve_parts", {
        lines: [versioned.title, "flux capacitor housing zzyzx", "   ", `${versioned.title} Rev Q`],
      }),
    );
    const [ambiguous, none, empty, noSuchVersion] = items;
    expect(ambiguous?.status).toBe("ambiguous");
    expect(ambiguous?.alternatives?.length).toBeGreaterThanOrEqual(2);
    expect(ambiguous?.alternatives?.length).toBeLessThanOrEqual(3);
    expect(ambiguous?.alternatives?.every((part) => part.title === versioned.title)).toBe(true);
    expect(ambiguous?.why).toMatch(/name a version/);
    expect(none).toMatchObject({ status: "none", confidence: 0 });
    expect(none?.why).toMatch(/^Nothing found: "(flux|capacitor|zzyzx)"/);
    expect(empty).toMatchObject({ status: "none" });
    expect(noSuchVersion?.status).toBe("ambiguous");
    expect(noSuchVersion?.why).toMatch(/No version Q/);
  });

  it("a line whose part cannot be read says so, and the other lines are answered", async () => {
    const [first, second] = parts;
    server.api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 500 } });
    try {
      const { items } = ok<ResolvedList>(
        await server.call("resolve_parts", { lines: [first?.id as string, `2x ${second?.serialId}`] }),
      );
      expect(items[0]).toMatchObject({ status: "none", confidence: 0 });
      expect(items[0]?.why).toMatch(/^Could not be looked up: 500/);
      expect(items[1]).toMatchObject({ status: "match", matchedBy: "serialId", quantity: 2 });
      expect(items[1]?.part?.id).toBe(second?.id);
    } finally {
      server.api.faults.clear();
    }
  });

  it("refuses bad lists with a clear message and sends nothing upstream", async () => {
    const requests = server.api.stats.requests();
    for (const lines of [[], Array(201).fill("bracket"), ["x".repeat(301)]]) {
      const result = await server.call("resolve_parts", { lines });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/lines/);
    }
    expect(server.api.stats.requests()).toBe(requests);
  });

  it("compares two versions of one part: every field same, different or unknown, codes named, lists as common and by part", async () => {
    const child = parts.find((part) => part.parentId && part.versionName === "Rev B") as Part;
    const parent = parts.find((part) => part.id === child.parentId) as Part;
    const requests = server.api.stats.requests();
    const result = await server.call("compare_parts", { ids: [parent.id, child.id] });
    const comparison = ok<Comparison>(result);
    expect(JSON.parse(textOf(result))).toEqual(comparison);
    expect(comparison.parts.map((part) => part.id)).toEqual([parent.id, child.id]);
    const field = (name: string) => comparison.fields.find((each) => each.field === name);
    expect(field("title")).toEqual({ field: "title", status: "same", values: [parent.title, child.title] });
    expect(field("versionName")).toMatchObject({
      status: "different",
      values: [parent.versionName, "Rev B"],
    });
    // The root has no parentId: a missing value is never equal to a present one.
    expect(field("parentId")).toEqual({ field: "parentId", status: "unknown", values: [null, parent.id] });
    if (parent.materialId && child.materialId) {
      expect(field("materialId")?.values[0]).toMatch(new RegExp(`^${parent.materialId} \\(.+\\)$`));
    }
    for (const each of comparison.fields) {
      const values = each.values;
      expect(values).toHaveLength(2);
      if (values.includes(null)) expect(each.status, each.field).toBe("unknown");
    }
    const common = (parent.standardIds ?? []).filter((code) => child.standardIds?.includes(code));
    expect(comparison.standards.common.map((named) => named.split(" (")[0])).toEqual(common);
    expect(Object.keys(comparison.standards.byPart)).toEqual([parent.id, child.id]);
    // Every code carries its own record's name: standards by code, criticalities and categories by id.
    const store = server.api.store;
    const nameOf = new Map([
      ...store.standards().map((record) => [record.code, record.name] as const),
      ...store.criticalities().map((record) => [record.id, record.name] as const),
      ...store.categories().map((record) => [record.id, record.name] as const),
    ]);
    const lists = [comparison.standards, comparison.criticalities, comparison.categories];
    const allNamed = lists.flatMap((each) => [...each.common, ...Object.values(each.byPart).flat()]);
    expect(allNamed.length).toBeGreaterThan(0);
    for (const named of allNamed) {
      const code = named.split(" (")[0] as string;
      expect(named).toBe(`${code} (${nameOf.get(code)})`);
    }
    // Two parts, their process and material records, three batches: at most one read each.
    expect(server.api.stats.requests() - requests).toBeLessThanOrEqual(2 + 4 + 3);
  });

  it("names the closest ids when a part is unknown, and refuses a part given twice", async () => {
    const known = parts[0] as Part;
    await server.call("get_part", { id: known.id });
    const unknown = await server.call("compare_parts", { ids: [known.id, `${known.id.slice(0, -1)}q`] });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain(known.id);
    const twice = await server.call("compare_parts", { ids: [known.id, known.id] });
    expect(twice.isError).toBe(true);
    expect(textOf(twice)).toMatch(/each part once/);
  });
});

describe.each(ERAS)("a list resolved before the catalogue is read to the end (%s era)", (era) => {
  let slow: InProcessServer;
  beforeAll(async () => {
    // One page a search call, each page slow, a short deadline: a call reads part of the catalogue.
    slow = await connectInProcess({ era, searchPagesPerCall: 1, timeoutMs: 1_500 });
    slow.api.faults.add({ endpoint: "listParts", action: { kind: "latency", ms: 250 } });
  });
  afterAll(() => slow?.close());

  it("answers with complete false and a cursor that continues the same list, with progress, until complete", async () => {
    const lines = ["zzyzx flux capacitor", "2x Hydraulic manifold"];
    const progress: number[] = [];
    const first = (await slow.client.callTool(
      { name: "resolve_parts", arguments: { lines } },
      { onprogress: (update) => progress.push(update.progress), timeout: 30_000 },
    )) as CallToolResult;
    const answer = ok<ResolvedList>(first);
    expect(answer.complete).toBe(false);
    expect(answer.cursor).toEqual(expect.any(String));
    expect(answer.items).toHaveLength(2);
    expect(progress.length).toBeGreaterThan(0);
    expect(textOf(first)).toContain(`cursor "${answer.cursor}"`);

    const elsewhere = await slow.call("resolve_parts", { lines: ["another list"], cursor: answer.cursor });
    expect(elsewhere.isError).toBe(true);
    expect(textOf(elsewhere)).toMatch(/another list/);
    const damaged = await slow.call("resolve_parts", { lines, cursor: `${answer.cursor}x` });
    expect(damaged.isError).toBe(true);

    let cursor = answer.cursor;
    let calls = 1;
    let last: ResolvedList = answer;
    while (!last.complete && calls < 10) {
      last = ok<ResolvedList>(await slow.call("resolve_parts", { lines, ...(cursor && { cursor }) }));
      cursor = last.cursor;
      calls++;
    }
    expect(last.complete).toBe(true);
    expect(last.cursor).toBeUndefined();
    expect(last.items.map((item) => item.status)).toEqual(["none", "ambiguous"]);
    expect(last.items[1]?.quantity).toBe(2);
  });
});
