// 1. Call overhead: get_part through the server (stdio, SDK Client, as mcp.json starts it) against
// a raw undici GET of the same path on the same embedded API, interleaved call by call so that
// both see the same machine. Also: the stdio round trip alone (ping), what debug logging costs,
// and the size of a part's text against the API's own body for it (compact JSON).
import { Pool } from "undici";
import type { EmbeddedApi } from "../../src/embedded";
import { type BenchServer, externalApiEnv, ms, type Report, round, spawnServer, summarize } from "./lib";

export const CALLS = 2_000;
/** As many as are measured: with 300, V8 had not optimised the hot paths of either side yet, and
 * the overhead read 0.34–0.45 ms (debug logging 0.16–0.24 ms) instead of 0.22–0.29 (0.02–0.08). */
const WARMUP = 2_000;
const PINGS = 500;
const DEBUG_CALLS = 1_000;

/** GET of a path on the API with the demo token, body read whole: what the server itself does. */
export function rawGetter(api: EmbeddedApi) {
  const pool = new Pool(api.url, { connections: 4 });
  const headers = { authorization: `Bearer ${api.demoToken}`, accept: "application/json" };
  return {
    async get(path: string): Promise<{ status: number; body: string }> {
      const response = await pool.request({ method: "GET", path, headers });
      return { status: response.statusCode, body: await response.body.text() };
    },
    close: () => pool.close(),
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

/** One get_part: its time, and whether the result is the right part. */
async function getPart(server: BenchServer, id: string): Promise<[number, boolean]> {
  const [t, result] = await timed(() => server.call("get_part", { id }));
  const data = result.structuredContent as { id?: string } | undefined;
  return [t, !result.isError && data?.id === id];
}

export async function benchOverhead(report: Report, api: EmbeddedApi, ids: readonly string[]) {
  const raw = rawGetter(api);
  const server = await spawnServer({ env: { ...externalApiEnv(api), PARTS_MCP_LOG_LEVEL: "warn" } });
  const debugServer = await spawnServer({ env: { ...externalApiEnv(api), PARTS_MCP_LOG_LEVEL: "debug" } });
  try {
    const rawOnce = async (id: string): Promise<[number, boolean]> => {
      const [t, r] = await timed(() => raw.get(`/v1/parts/${encodeURIComponent(id)}`));
      return [t, r.status === 200];
    };
    for (let i = 0; i < WARMUP; i++) {
      const id = ids[i % ids.length] as string;
      await rawOnce(id);
      await getPart(server, id);
      await getPart(debugServer, id);
      await server.client.ping();
    }

    const pings: number[] = [];
    for (let i = 0; i < PINGS; i++) pings.push((await timed(() => server.client.ping()))[0]);

    const rawTimes: number[] = [];
    const mcpTimes: number[] = [];
    let wrong = 0;
    for (let i = 0; i < CALLS; i++) {
      const id = ids[i % ids.length] as string;
      const [tr, okr] = await rawOnce(id);
      const [tm, okm] = await getPart(server, id);
      if (!okr || !okm) wrong++;
      rawTimes.push(tr);
      mcpTimes.push(tm);
    }

    const warnTimes: number[] = [];
    const debugTimes: number[] = [];
    for (let i = 0; i < DEBUG_CALLS; i++) {
      const id = ids[i % ids.length] as string;
      warnTimes.push((await getPart(server, id))[0]);
      debugTimes.push((await getPart(debugServer, id))[0]);
    }

    // Compact JSON: a part's text against the API's own body for it.
    const sampleId = ids[0] as string;
    const apiBody = (await raw.get(`/v1/parts/${encodeURIComponent(sampleId)}`)).body;
    const result = await server.call("get_part", { id: sampleId });
    const first = result.content[0];
    const text = first?.type === "text" ? first.text : "";
    const sizes = {
      partId: sampleId,
      apiBodyBytes: Buffer.byteLength(apiBody),
      textBytes: Buffer.byteLength(text),
      structuredContentBytes: Buffer.byteLength(JSON.stringify(result.structuredContent)),
      wholeResultBytes: Buffer.byteLength(JSON.stringify(result)),
      resourceLinks: result.content.filter((c) => c.type === "resource_link").length,
    };

    const r = summarize(rawTimes);
    const m = summarize(mcpTimes);
    const p = summarize(pings);
    const w = summarize(warnTimes);
    const d = summarize(debugTimes);
    const how = `${CALLS} sequential calls each, interleaved call by call, after ${WARMUP} warm-up calls; same part ids (${ids.length} sample parts, cycled)`;
    report.rows.push(
      {
        section: "1 call overhead",
        name: "raw undici GET /v1/parts/{id}",
        value: `median ${ms(r.median)}, p95 ${ms(r.p95)}`,
        how,
      },
      {
        section: "1 call overhead",
        name: "get_part via stdio server (SDK Client)",
        value: `median ${ms(m.median)}, p95 ${ms(m.p95)}`,
        how: `${how}; log level warn; client listed tools first (so it checks structuredContent against outputSchema)`,
      },
      {
        section: "1 call overhead",
        name: "overhead (get_part − raw)",
        value: `median ${ms(m.median - r.median)}, p95 ${ms(m.p95 - r.p95)}; ratio ${round(m.median / r.median, 2)}× (p95 ${round(m.p95 / r.p95, 2)}×)`,
        how: "difference and ratio of the two distributions above",
      },
      {
        section: "1 call overhead",
        name: "stdio round trip alone (ping)",
        value: `median ${ms(p.median)}, p95 ${ms(p.p95)}`,
        how: `${PINGS} sequential pings on the same connection: the transport's share of the overhead`,
      },
      {
        section: "1 call overhead",
        name: "debug logging cost",
        value: `median ${ms(d.median - w.median)} per call (debug ${ms(d.median)} vs warn ${ms(w.median)})`,
        how: `${DEBUG_CALLS} get_part calls each on two servers (PARTS_MCP_LOG_LEVEL debug / warn), interleaved; stderr to a drained pipe`,
      },
      {
        section: "1 call overhead",
        name: "wrong results",
        value: String(wrong),
        how: "raw: status ≠ 200; get_part: isError or another part's id",
      },
      {
        section: "compact JSON",
        name: `part ${sampleId}: API body vs tool text`,
        value: `${sizes.apiBodyBytes} B vs ${sizes.textBytes} B (structuredContent ${sizes.structuredContentBytes} B; whole result with ${sizes.resourceLinks} resource_links ${sizes.wholeResultBytes} B)`,
        how: "byte lengths (UTF-8) of GET /v1/parts/{id} and of the get_part result's text content",
      },
    );
    report.data.overhead = { raw: r, mcp: m, ping: p, warn: w, debug: d, wrong, sizes };
    return { raw: r, mcp: m, ping: p, sizes, wrong };
  } finally {
    await Promise.all([server.close(), debugServer.close(), raw.close()]);
  }
}
