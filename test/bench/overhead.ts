// 1. Per-call server cost: get_part through parts-mcp and through the minimal SDK server, both over
// stdio with a bare JSON-RPC client (nothing validated on the client side), against a raw undici
// GET of the same path on the same API: three interleaved call by call (the order rotating), so
// that all three see the same machine. In each protocol era. Also: the servers' CPU time per call,
// beside a second yardstick, the minimal server calling the API with undici's `request` (leaner
// than fetch), run in the same rotation,
// the stdio round trip alone (ping), what debug logging costs, and the size of a part's text
// against the API's own body for it (compact JSON).
import { Pool } from "undici";
import type { EmbeddedApi } from "../../src/embedded";
import {
  checkRatio,
  cpuMs,
  externalApiEnv,
  minimalSpec,
  ms,
  oursSpec,
  type Report,
  round,
  type Summary,
  summarize,
  times,
} from "./lib";
import { ERAS, type Era, RpcSession, textOf } from "./rpc";

const CALLS = 1_500;
/** V8 optimises the hot paths of all three only after some 1,000 calls; fewer read high. */
const WARMUP = 1_000;
const PINGS = 300;
const DEBUG_CALLS = 500;

/** GET of a path on the API with the demo token, body read whole: what a server itself does. */
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

async function timed(fn: () => Promise<boolean>): Promise<[number, boolean]> {
  const t0 = performance.now();
  const ok = await fn();
  return [performance.now() - t0, ok];
}

export interface EraCallCost {
  era: Era;
  raw: Summary;
  ours: Summary;
  minimal: Summary;
  undici: Summary;
  /** Server CPU (user + system) per measured call, in ms. */
  oursCpuMs: number;
  minimalCpuMs: number;
  undiciCpuMs: number;
  wrong: number;
}

async function measureEra(api: EmbeddedApi, ids: readonly string[], era: Era): Promise<EraCallCost> {
  const raw = rawGetter(api);
  const ours = await RpcSession.start(oursSpec(externalApiEnv(api)), era);
  const minimal = await RpcSession.start(minimalSpec(api), era);
  const undici = await RpcSession.start(minimalSpec(api, ["--undici"]), era);
  try {
    const path = (id: string) => `/v1/parts/${encodeURIComponent(id)}`;
    const steps = [
      (id: string) => timed(async () => (await raw.get(path(id))).status === 200),
      (id: string) => timed(async () => (await ours.call("get_part", { id })).structuredContent?.id === id),
      (id: string) =>
        timed(async () => textOf(await minimal.call("get_part", { id })).includes(`"id":"${id}"`)),
      (id: string) =>
        timed(async () => textOf(await undici.call("get_part", { id })).includes(`"id":"${id}"`)),
    ];
    const samples: number[][] = [[], [], [], []];
    let wrong = 0;
    const oneRound = async (i: number, record: boolean) => {
      const id = ids[i % ids.length] as string;
      for (let k = 0; k < steps.length; k++) {
        const which = (i + k) % steps.length;
        const [t, ok] = await (steps[which] as (id: string) => Promise<[number, boolean]>)(id);
        if (!record) continue;
        samples[which]?.push(t);
        if (!ok) wrong++;
      }
    };
    for (let i = 0; i < WARMUP; i++) await oneRound(i, false);
    const servers = [ours, minimal, undici];
    const cpu0 = servers.map((server) => cpuMs(server.pid));
    for (let i = 0; i < CALLS; i++) await oneRound(i, true);
    const perCall = servers.map((server, k) => (cpuMs(server.pid) - (cpu0[k] as number)) / CALLS);
    return {
      era,
      raw: summarize(samples[0] ?? []),
      ours: summarize(samples[1] ?? []),
      minimal: summarize(samples[2] ?? []),
      undici: summarize(samples[3] ?? []),
      oursCpuMs: perCall[0] as number,
      minimalCpuMs: perCall[1] as number,
      undiciCpuMs: perCall[2] as number,
      wrong,
    };
  } finally {
    await Promise.all([ours.close(), minimal.close(), undici.close(), raw.close()]);
  }
}

/** Pings on each server (2025 era: the 2026 revision has no ping), interleaved. */
async function measurePings(api: EmbeddedApi) {
  const ours = await RpcSession.start(oursSpec(externalApiEnv(api)), "2025-11-25");
  const minimal = await RpcSession.start(minimalSpec(api), "2025-11-25");
  try {
    const oursTimes: number[] = [];
    const minimalTimes: number[] = [];
    for (let i = 0; i < PINGS * 2; i++) {
      const [t1] = await timed(async () => !(await ours.request("ping")).error);
      const [t2] = await timed(async () => !(await minimal.request("ping")).error);
      if (i >= PINGS) {
        oursTimes.push(t1);
        minimalTimes.push(t2);
      }
    }
    return { ours: summarize(oursTimes), minimal: summarize(minimalTimes) };
  } finally {
    await Promise.all([ours.close(), minimal.close()]);
  }
}

/** get_part at log level warn and debug, on two servers of ours, interleaved. */
async function measureDebugLogging(api: EmbeddedApi, ids: readonly string[]) {
  const warn = await RpcSession.start(oursSpec(externalApiEnv(api)), "2026-07-28");
  const debug = await RpcSession.start(
    oursSpec({ ...externalApiEnv(api), PARTS_MCP_LOG_LEVEL: "debug" }),
    "2026-07-28",
  );
  try {
    const warnTimes: number[] = [];
    const debugTimes: number[] = [];
    for (let i = 0; i < DEBUG_CALLS * 2; i++) {
      const id = ids[i % ids.length] as string;
      const [tw] = await timed(async () => !(await warn.call("get_part", { id })).isError);
      const [td] = await timed(async () => !(await debug.call("get_part", { id })).isError);
      if (i >= DEBUG_CALLS) {
        warnTimes.push(tw);
        debugTimes.push(td);
      }
    }
    return { warn: summarize(warnTimes), debug: summarize(debugTimes) };
  } finally {
    await Promise.all([warn.close(), debug.close()]);
  }
}

/** A part's text in get_part's result against the API's own body for it. */
async function compactJson(api: EmbeddedApi, partId: string) {
  const raw = rawGetter(api);
  const ours = await RpcSession.start(oursSpec(externalApiEnv(api)), "2025-11-25");
  try {
    const apiBody = (await raw.get(`/v1/parts/${encodeURIComponent(partId)}`)).body;
    const result = await ours.call("get_part", { id: partId });
    return {
      partId,
      apiBodyBytes: Buffer.byteLength(apiBody),
      textBytes: Buffer.byteLength(textOf(result)),
      structuredContentBytes: Buffer.byteLength(JSON.stringify(result.structuredContent)),
      wholeResultBytes: Buffer.byteLength(JSON.stringify(result)),
      resourceLinks: result.content.filter((c) => c.type === "resource_link").length,
    };
  } finally {
    await Promise.all([ours.close(), raw.close()]);
  }
}

export async function benchOverhead(report: Report, api: EmbeddedApi, ids: readonly string[]) {
  const eras: EraCallCost[] = [];
  for (const era of ERAS) eras.push(await measureEra(api, ids, era));
  const pings = await measurePings(api);
  const logging = await measureDebugLogging(api, ids);
  const sizes = await compactJson(api, ids[0] as string);

  const how = `${CALLS} sequential calls each after ${WARMUP} warm-up, raw GET, parts-mcp and the minimal server interleaved call by call (order rotating); ${ids.length} sample part ids cycled; bare JSON-RPC client over stdio, log level warn`;
  for (const e of eras) {
    const section = `1 per-call cost (${e.era})`;
    const overhead = (s: Summary) => s.median - e.raw.median;
    report.rows.push(
      {
        section,
        name: "raw undici GET /v1/parts/{id}",
        value: `median ${ms(e.raw.median)}, p95 ${ms(e.raw.p95)}`,
        how,
      },
      {
        section,
        name: "get_part round trip: parts-mcp vs minimal",
        value: `median ${ms(e.ours.median)} vs ${ms(e.minimal.median)}: ${times(e.ours.median, e.minimal.median)}; p95 ${ms(e.ours.p95)} vs ${ms(e.minimal.p95)}: ${times(e.ours.p95, e.minimal.p95)}; ${times(e.ours.median, e.raw.median)} vs ${times(e.minimal.median, e.raw.median)} raw HTTP`,
        how,
      },
      {
        section,
        name: "over raw HTTP (round trip − raw GET)",
        value: `median ${ms(overhead(e.ours))} vs ${ms(overhead(e.minimal))}: ${times(overhead(e.ours), overhead(e.minimal))}`,
        how: "the difference of medians: what the MCP server adds to the upstream request",
      },
      {
        section,
        name: "server CPU per call",
        value: `${ms(e.oursCpuMs)} vs ${ms(e.minimalCpuMs)}: ${times(e.oursCpuMs, e.minimalCpuMs)}; vs the minimal server with undici ${ms(e.undiciCpuMs)}: ${times(e.oursCpuMs, e.undiciCpuMs)}`,
        how: `user + system time of each server process (/proc/<pid>/stat) over the measured calls, divided by their number; the undici yardstick is test/bench/minimal-server.mjs --undici, in the same rotation (its round trip: median ${ms(e.undici.median)})`,
      },
      {
        section,
        name: "wrong results",
        value: String(e.wrong),
        how: "raw: status ≠ 200; parts-mcp: another part's id in structuredContent; minimal: the id not in the text",
      },
    );
  }
  report.rows.push(
    {
      section: "1 per-call cost",
      name: "stdio round trip alone (ping, 2025 era)",
      value: `median ${ms(pings.ours.median)} vs ${ms(pings.minimal.median)}: ${times(pings.ours.median, pings.minimal.median)}`,
      how: `${PINGS} pings on each server after ${PINGS}, interleaved: the transport's share of a call`,
    },
    {
      section: "1 per-call cost",
      name: "debug logging cost",
      value: `median ${ms(logging.debug.median - logging.warn.median)} per call (debug ${ms(logging.debug.median)} vs warn ${ms(logging.warn.median)})`,
      how: `${DEBUG_CALLS} get_part calls each on two parts-mcp servers (PARTS_MCP_LOG_LEVEL debug / warn) after ${DEBUG_CALLS}, interleaved; stderr to a drained pipe`,
    },
    {
      section: "compact JSON",
      name: `part ${sizes.partId}: API body vs tool text`,
      value: `${sizes.apiBodyBytes} B vs ${sizes.textBytes} B (structuredContent ${sizes.structuredContentBytes} B; whole result with ${sizes.resourceLinks} resource_links ${sizes.wholeResultBytes} B)`,
      how: "byte lengths (UTF-8) of GET /v1/parts/{id} and of the get_part result's text content",
    },
  );
  for (const e of eras) {
    checkRatio(
      report,
      `per-call server cost, get_part round trip (${e.era})`,
      e.ours.median,
      e.minimal.median,
      1.0,
      ms,
    );
    checkRatio(
      report,
      `server CPU per get_part over stdio, vs the minimal server with undici (${e.era})`,
      e.oursCpuMs,
      e.undiciCpuMs,
      1.3,
      ms,
      false,
      "minimal (undici)",
    );
  }
  report.data.overhead = {
    calls: CALLS,
    eras: eras.map((e) => ({ ...e, ratio: round(e.ours.median / e.minimal.median, 3) })),
    pings,
    logging,
    sizes,
  };
  return { eras, sizes };
}
