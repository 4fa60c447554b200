// 4. describe_part, cold cache and warm: upstream requests (from the embedded API's counters) and
// latency. 5. list_parts on the 100,000-part catalogue: page 1 against a deep page.
import type { EndpointName } from "../../src/api/endpoints";
import type { TestApi } from "../../src/embedded/testing";
import { externalApiEnv, ms, oursSpec, type Report, summarize, times } from "./lib";
import { rawGetter } from "./overhead";
import { RpcSession } from "./rpc";

const DESCRIBE_CALLS = 300;
const LIST_CALLS = 200;
const WARMUP = 300;

/** Requests per endpoint that `fn` caused, from the API's counters (nothing else may run). */
async function countRequests(api: TestApi, fn: () => Promise<unknown>) {
  api.stats.reset();
  await fn();
  const endpoints: EndpointName[] = [
    "getPart",
    "getProcess",
    "getMaterial",
    "getStandard",
    "batchGetStandards",
    "getCriticality",
    "batchGetCriticalities",
    "batchGetCategories",
  ];
  const by = Object.fromEntries(endpoints.map((e) => [e, api.stats.requests(e)]).filter(([, n]) => n !== 0));
  return { total: api.stats.requests(), by: by as Record<string, number> };
}

const describeOf = (counts: { total: number; by: Record<string, number> }) =>
  `${counts.total} (${Object.entries(counts.by)
    .map(([e, n]) => `${e} ${n}`)
    .join(", ")})`;

async function timedCall(server: RpcSession, name: string, args: Record<string, unknown>) {
  const t0 = performance.now();
  const result = await server.call(name, args);
  const t = performance.now() - t0;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return { t, result };
}

/** The visible sample part with the most references: the most work for describe_part. */
function richestPart(api: TestApi): string {
  const org = api.accounts[0]?.orgId as string;
  let best = { id: "", refs: -1 };
  for (const part of api.store.sampleParts()) {
    if (!api.store.partFor(part.id, org)) continue;
    const refs =
      (part.processId ? 1 : 0) +
      (part.materialId ? 1 : 0) +
      (part.standardIds?.length ?? 0) +
      (part.criticalityIds?.length ?? 0) +
      (part.categoryIds?.length ?? 0);
    if (refs > best.refs) best = { id: part.id, refs };
  }
  return best.id;
}

export async function benchDescribe(report: Report, api: TestApi) {
  const id = richestPart(api);
  const env = externalApiEnv(api);
  // Cache off: every call is a cold-cache call (in a warm process).
  const cold = await RpcSession.start(oursSpec({ ...env, PARTS_MCP_CACHE_TTL_MS: "0" }), "2026-07-28");
  const warm = await RpcSession.start(oursSpec(env), "2026-07-28");
  try {
    const first = await timedCall(warm, "describe_part", { id }); // fresh process, empty cache
    const firstCounts = await countRequests(api, () => timedCall(cold, "describe_part", { id }));
    const warmCounts = await countRequests(api, () => timedCall(warm, "describe_part", { id }));
    for (let i = 0; i < WARMUP; i++) {
      await timedCall(cold, "describe_part", { id });
      await timedCall(warm, "describe_part", { id });
    }
    const coldTimes: number[] = [];
    const warmTimes: number[] = [];
    for (let i = 0; i < DESCRIBE_CALLS; i++) {
      coldTimes.push((await timedCall(cold, "describe_part", { id })).t);
      warmTimes.push((await timedCall(warm, "describe_part", { id })).t);
    }
    const c = summarize(coldTimes);
    const w = summarize(warmTimes);
    const how = `part ${id} (the sample part with the most references); ${DESCRIBE_CALLS} sequential calls each, interleaved, after ${WARMUP}; requests counted by the embedded API; 2026 era, bare JSON-RPC client`;
    report.rows.push(
      {
        section: "4 describe_part",
        name: "cold cache: upstream requests per call",
        value: describeOf(firstCounts),
        how: "server with PARTS_MCP_CACHE_TTL_MS=0 (every call cold)",
      },
      {
        section: "4 describe_part",
        name: "warm cache: upstream requests per call",
        value: describeOf(warmCounts),
        how: "default cache (TTL 5 min), after one call",
      },
      {
        section: "4 describe_part",
        name: "cold cache latency",
        value: `median ${ms(c.median)}, p95 ${ms(c.p95)}`,
        how: `${how}; cache off (warm process)`,
      },
      {
        section: "4 describe_part",
        name: "warm cache latency",
        value: `median ${ms(w.median)}, p95 ${ms(w.p95)}`,
        how,
      },
      {
        section: "4 describe_part",
        name: "first call of a fresh process",
        value: ms(first.t),
        how: "one sample: empty cache and cold code paths",
      },
    );
    report.data.describePart = {
      id,
      coldRequests: firstCounts,
      warmRequests: warmCounts,
      cold: c,
      warm: w,
      firstCallMs: first.t,
    };
  } finally {
    await Promise.all([cold.close(), warm.close()]);
  }
}

export async function benchListParts(report: Report, api: TestApi) {
  const org = api.accounts[0]?.orgId as string;
  const visible = api.store.viewSize(org);
  const pageSize = 50;
  const lastPage = Math.ceil(visible / pageSize);
  const pages = [1, lastPage, 2_000];
  const server = await RpcSession.start(oursSpec(externalApiEnv(api)), "2026-07-28");
  const raw = rawGetter(api);
  try {
    const items = new Map<number, number>();
    for (const page of pages) {
      const { result } = await timedCall(server, "list_parts", { page, pageSize });
      items.set(page, (result.structuredContent as { items: unknown[] } | undefined)?.items.length ?? 0);
    }
    const toolTimes = new Map<number, number[]>(pages.map((p) => [p, []]));
    const rawTimes = new Map<number, number[]>(pages.map((p) => [p, []]));
    for (let i = 0; i < WARMUP + LIST_CALLS; i++) {
      for (const page of pages) {
        const { t } = await timedCall(server, "list_parts", { page, pageSize });
        const t0 = performance.now();
        await raw.get(`/v1/parts?page=${page}&pageSize=${pageSize}`);
        const tr = performance.now() - t0;
        if (i >= WARMUP) {
          toolTimes.get(page)?.push(t);
          rawTimes.get(page)?.push(tr);
        }
      }
    }
    const summaries = pages.map((page) => ({
      page,
      items: items.get(page),
      ...summarize(toolTimes.get(page) ?? []),
      raw: summarize(rawTimes.get(page) ?? []),
    }));
    for (const s of summaries) {
      report.rows.push({
        section: "5 list_parts",
        name: `page ${s.page}, pageSize ${pageSize} (${s.items} items)`,
        value: `median ${ms(s.median)}, p95 ${ms(s.p95)}; raw GET ${ms(s.raw.median)}: ${times(s.median, s.raw.median)} raw HTTP`,
        how: `large catalogue (100,000 generated + sample parts; ${visible} visible to the demo org, so its last page is ${lastPage}); ${LIST_CALLS} calls per page after ${WARMUP}, interleaved with a raw undici GET of the same page; 2026 era, bare JSON-RPC client`,
      });
    }
    report.data.listParts = { visible, pageSize, pages: summaries };
  } finally {
    await Promise.all([server.close(), raw.close()]);
  }
}
