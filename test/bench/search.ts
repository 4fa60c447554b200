// 9. search_parts on the 100,000-part catalogue (issue 16), through parts-mcp as mcp.json starts
// it, with its default settings: the first search until `complete` (calls, wall time, upstream
// requests), a repeat search on the warm index (median through the protocol), and the index's
// memory per 100,000 parts (test/search/measure.ts). Each figure stands beside a plain list_parts
// call on the same server: its median latency, the calls a model would need to read the
// catalogue with it, and the JSON of the pages the index was built from.
import { loadSearchConfig } from "../../src/config";
import type { TestApi } from "../../src/embedded/testing";
import { measureIndex } from "../search/measure";
import {
  checkTarget,
  externalApiEnv,
  mib,
  ms,
  oursSpec,
  type Report,
  round,
  rssMiB,
  summarize,
  times,
} from "./lib";
import { RpcSession, type ToolResult, textOf } from "./rpc";

const SECTION = "9 search";
/** Matches no part, so every call of the first search reads as far as one call may. */
const FIRST_SEARCH = { text: "no such word" };
/** The repeat searches: a model's question, a filter, and the first search again. */
const REPEATS: readonly Record<string, unknown>[] = [
  { text: "engine mount bracket" },
  { materialId: "ti64" },
  FIRST_SEARCH,
];
/**
 * Questions as people type them (several words, family words, a typo, lists of codes, a parent
 * category), timed beside the searches above on the same warm index.
 */
const NATURAL: readonly Record<string, unknown>[] = [
  { text: "titanium brackets" },
  { text: "3D printed nylon housings" },
  { text: "flight critical" },
  { text: "brakcets" },
  { text: "aluminium housings" },
  { text: "housing", materialId: ["pa12", "pa11"] },
  { categoryId: "cat-structural" },
];
const REPEAT_ROUNDS = 40;
const WARMUP_ROUNDS = 10;
const LIST_PAGE = { page: 1, pageSize: 50 };
const MAX_CALLS = 200;

interface SearchResult {
  items: unknown[];
  scanned: number;
  complete: boolean;
  nextCursor?: string;
}

async function timed(server: RpcSession, name: string, args: Record<string, unknown>) {
  const t0 = performance.now();
  const result: ToolResult = await server.call(name, args);
  const t = performance.now() - t0;
  if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${textOf(result)}`);
  return { t, result };
}

export async function benchSearch(report: Report, api: TestApi) {
  const org = api.accounts[0]?.orgId as string;
  const visible = api.store.viewSize(org);
  const server = await RpcSession.start(oursSpec(externalApiEnv(api)), "2026-07-28");
  try {
    // One list_parts first, so that the search's first call does not also pay for a cold process.
    await timed(server, "list_parts", LIST_PAGE);
    const rssBefore = rssMiB(server.pid);

    // First search until complete.
    const requestsBefore = api.stats.requests();
    const listBefore = api.stats.requests("listParts");
    const perCall: { ms: number; scanned: number; requests: number }[] = [];
    const started = performance.now();
    let cursor: string | undefined;
    let last: SearchResult | undefined;
    while (perCall.length < MAX_CALLS) {
      const before = api.stats.requests("listParts");
      const { t, result } = await timed(server, "search_parts", {
        ...FIRST_SEARCH,
        ...(cursor && { cursor }),
      });
      last = result.structuredContent as unknown as SearchResult;
      perCall.push({ ms: t, scanned: last.scanned, requests: api.stats.requests("listParts") - before });
      if (last.complete) break;
      cursor = last.nextCursor;
      if (!cursor) throw new Error("search_parts: neither complete nor a nextCursor");
    }
    const firstMs = performance.now() - started;
    const firstRequests = api.stats.requests() - requestsBefore;
    const firstListRequests = api.stats.requests("listParts") - listBefore;
    if (!last?.complete) throw new Error(`search_parts not complete after ${MAX_CALLS} calls`);
    const rssAfter = rssMiB(server.pid);

    // Repeat searches on the warm index, interleaved with list_parts page 1 on the same server.
    const repeatTimes = REPEATS.map(() => [] as number[]);
    const naturalTimes = NATURAL.map(() => [] as number[]);
    const listTimes: number[] = [];
    const repeatRequestsBefore = api.stats.requests();
    let listRequests = 0;
    for (let round = 0; round < WARMUP_ROUNDS + REPEAT_ROUNDS; round++) {
      for (const [i, args] of REPEATS.entries()) {
        const { t } = await timed(server, "search_parts", args);
        if (round >= WARMUP_ROUNDS) repeatTimes[i]?.push(t);
      }
      for (const [i, args] of NATURAL.entries()) {
        const { t } = await timed(server, "search_parts", args);
        if (round >= WARMUP_ROUNDS) naturalTimes[i]?.push(t);
      }
      const before = api.stats.requests();
      const { t } = await timed(server, "list_parts", LIST_PAGE);
      listRequests += api.stats.requests() - before;
      if (round >= WARMUP_ROUNDS) listTimes.push(t);
    }
    const repeatRequests = api.stats.requests() - repeatRequestsBefore - listRequests;
    const list = summarize(listTimes);
    const repeats = repeatTimes.map((samples) => summarize(samples));
    const worstRepeat = Math.max(...repeats.map((s) => s.median));
    const naturals = naturalTimes.map((samples) => summarize(samples));
    const worstNatural = Math.max(...naturals.map((s) => s.median));

    // The index's memory per 100,000 parts, measured in this process (heap before and after).
    const index = measureIndex();
    const budget = loadSearchConfig({}).indexBudgetBytes / 1024 / 1024;

    const listCallsToRead = Math.ceil(visible / LIST_PAGE.pageSize);
    const how = `${visible} parts visible to the demo token (100,000 generated + sample); server defaults; 2026 era, bare JSON-RPC client`;
    report.rows.push(
      {
        section: SECTION,
        name: `first search until complete: calls`,
        value: `${perCall.length} (scanned ${perCall.map((c) => c.scanned).join(", ")}); reading them with list_parts: ${listCallsToRead} calls (${round(listCallsToRead / perCall.length, 0)}× as many)`,
        how: `search_parts ${JSON.stringify(FIRST_SEARCH)} (matches nothing: every call reads as far as it may), nextCursor until complete; beside the list_parts calls (pageSize 50) that read the same parts; ${how}`,
      },
      {
        section: SECTION,
        name: "first search until complete: wall time",
        value: `${ms(firstMs)} (per call ${perCall.map((c) => ms(c.ms)).join(", ")}); ${times(firstMs, list.median)} a list_parts call; reading the parts with list_parts, one call after another: ≈ ${ms(listCallsToRead * list.median)} (${listCallsToRead} × its median)`,
        how: "from the first call sent to the last answer, calls one after another",
      },
      {
        section: SECTION,
        name: "first search until complete: upstream requests",
        value: `${firstRequests} (listParts ${firstListRequests}: ${perCall.map((c) => c.requests).join(" + ")}); list_parts: 1 per call`,
        how: "counted by the embedded API",
      },
      {
        section: SECTION,
        name: "repeat search on the warm index",
        value: `${REPEATS.map((args, i) => `${JSON.stringify(args)} median ${ms(repeats[i]?.median ?? Number.NaN)}, p95 ${ms(repeats[i]?.p95 ?? Number.NaN)}`).join("; ")}; ${repeatRequests} upstream requests`,
        how: `${REPEAT_ROUNDS} rounds after ${WARMUP_ROUNDS}, each round the three searches then list_parts, one call at a time`,
      },
      {
        section: SECTION,
        name: "natural phrasings on the warm index",
        value: `${NATURAL.map((args, i) => `${JSON.stringify(args)} median ${ms(naturals[i]?.median ?? Number.NaN)}`).join("; ")}; slowest median ${times(worstNatural, list.median)} list_parts`,
        how: "the same rounds: family words, referenced records, a typo, code lists and a parent category",
      },
      {
        section: SECTION,
        name: "list_parts page 1, pageSize 50 (the yardstick)",
        value: `median ${ms(list.median)}, p95 ${ms(list.p95)}; slowest repeat search median ${times(worstRepeat, list.median)} of it`,
        how: "the same server, interleaved with the repeat searches",
      },
      {
        section: SECTION,
        name: "index memory per 100,000 parts",
        value: `${mib(index.heapMiB)} heap (the index's own estimate ${mib(index.estimateMiB)}); ${times(index.heapMiB, index.jsonMiB)} the ${mib(index.jsonMiB)} of list_parts JSON it was built from`,
        how: `test/search/measure.ts measureIndex(): heap after a forced GC, before and after indexing 100,000 generated parts in this process; budget for all tokens' indexes ${mib(budget)} (PARTS_MCP_SEARCH_INDEX_MB default)`,
      },
      {
        section: SECTION,
        name: "server RSS across the first search",
        value: `${mib(rssBefore)} → ${mib(rssAfter)} (+${mib(rssAfter - rssBefore)})`,
        how: "VmRSS of the server before the first call and after the last; includes garbage not yet collected",
      },
    );
    report.data.search = {
      visible,
      first: {
        calls: perCall,
        wallMs: round(firstMs, 1),
        requests: firstRequests,
        listRequests: firstListRequests,
      },
      repeats: REPEATS.map((args, i) => ({ args, ...repeats[i] })),
      natural: NATURAL.map((args, i) => ({ args, ...naturals[i] })),
      repeatRequests,
      listParts: list,
      index,
      indexBudgetMiB: budget,
      rss: { before: rssBefore, after: rssAfter },
    };
    checkTarget(report, "search: first complete search, calls", perCall.length, 5, "calls");
    checkTarget(report, "search: repeat search median (slowest of 3)", worstRepeat, 10, "ms");
    checkTarget(report, "search: natural phrasing median (slowest)", worstNatural, 10, "ms");
    checkTarget(report, "search: index memory per 100,000 parts", index.heapMiB, 60, "MiB");
  } finally {
    await server.close();
  }
}
