// 1. Per-call server cost: get_part through parts-mcp and through the minimal SDK server, both over
// stdio with a bare JSON-RPC client (nothing validated on the client side), against a raw undici
// GET of the same path on the same API: three interleaved call by call (the order rotating), so
// that all see the same machine. In each protocol era. Also: the servers' CPU time per call,
// beside two more yardsticks in the same rotation: the minimal server calling the API with undici's
// `request` (leaner than fetch), and the same returning get_part's result as parts-mcp shapes it;
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

/**
 * CPU per call at three points of the servers' lives: their first FIRST_CALLS calls (V8 still
 * compiling), after WARMUP calls (the target, and the calls whose round trips are reported), and
 * after STEADY_AFTER calls, when V8 has optimised all it will (optimisations go on in all three
 * until some 5,000 calls, and the smaller servers gain more from them).
 */
const FIRST_CALLS = 500;
const WARMUP = 1_000;
/** Measured calls per era: WINDOWS windows of CALLS_PER_WINDOW. */
const WINDOWS = 9;
const CALLS_PER_WINDOW = 300;
const CALLS = WINDOWS * CALLS_PER_WINDOW;

const ratioOf = (cpu: CpuPerCall) =>
  `${cpu.undiciRatio.toFixed(2)}×${cpu.undiciRatios.length > 1 ? ` (windows ${cpu.undiciRatios.map((r) => r.toFixed(2)).join(", ")}; all together ${cpu.undiciRatioOverall.toFixed(2)}×)` : ""}`;
const STEADY_AFTER = 5_000;
const STEADY_WINDOWS = 5;
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
  /** Server CPU per call after WARMUP calls (the target's); the other two points beside it. */
  cpu: CpuPerCall;
  firstCpu: CpuPerCall;
  steadyCpu: CpuPerCall;
  wrong: number;
}

interface CpuPerCall {
  /** Per call, in ms: the median of the windows. */
  oursMs: number;
  minimalMs: number;
  undiciMs: number;
  /** The undici server returning get_part's result as parts-mcp does (--same-result). */
  sameMs: number;
  /** parts-mcp's CPU per call against the undici server's: the median of the windows' ratios. */
  undiciRatio: number;
  undiciRatios: number[];
  /** The same over all the windows' calls together (the figure before windows). */
  undiciRatioOverall: number;
  /** The same against the undici server that returns the same result. */
  sameRatio: number;
}

async function measureEra(api: EmbeddedApi, ids: readonly string[], era: Era): Promise<EraCallCost> {
  const raw = rawGetter(api);
  const ours = await RpcSession.start(oursSpec(externalApiEnv(api)), era);
  const minimal = await RpcSession.start(minimalSpec(api), era);
  const undici = await RpcSession.start(minimalSpec(api, ["--undici"]), era);
  const same = await RpcSession.start(minimalSpec(api, ["--undici", "--same-result"]), era);
  try {
    const path = (id: string) => `/v1/parts/${encodeURIComponent(id)}`;
    const steps = [
      (id: string) => timed(async () => (await raw.get(path(id))).status === 200),
      (id: string) => timed(async () => (await ours.call("get_part", { id })).structuredContent?.id === id),
      (id: string) =>
        timed(async () => textOf(await minimal.call("get_part", { id })).includes(`"id":"${id}"`)),
      (id: string) =>
        timed(async () => textOf(await undici.call("get_part", { id })).includes(`"id":"${id}"`)),
      (id: string) => timed(async () => (await same.call("get_part", { id })).structuredContent?.id === id),
    ];
    const samples: number[][] = [[], [], [], [], []];
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
    // CPU per call in windows, all three servers in each: a burst of another process on this shared
    // machine spoils a window, not the figure.
    const servers = [ours, minimal, undici, same];
    let calls = 0;
    const cpuPerCall = async (
      windows: number,
      callsPerWindow: number,
      record: boolean,
    ): Promise<CpuPerCall> => {
      const perWindow: number[][] = [];
      for (let w = 0; w < windows; w++) {
        const cpu0 = servers.map((server) => cpuMs(server.pid));
        for (let i = 0; i < callsPerWindow; i++) await oneRound(calls++, record);
        perWindow.push(
          servers.map((server, k) => (cpuMs(server.pid) - (cpu0[k] as number)) / callsPerWindow),
        );
      }
      const [oursMs, minimalMs, undiciMs, sameMs] = servers.map(
        (_, k) => summarize(perWindow.map((window) => window[k] as number)).median,
      );
      const ratios = (k: number) =>
        perWindow.map((window) => round((window[0] as number) / (window[k] as number), 3));
      const total = (k: number) => perWindow.reduce((sum, window) => sum + (window[k] as number), 0);
      return {
        oursMs: oursMs as number,
        minimalMs: minimalMs as number,
        undiciMs: undiciMs as number,
        sameMs: sameMs as number,
        undiciRatio: summarize(ratios(2)).median,
        undiciRatios: ratios(2),
        undiciRatioOverall: round(total(0) / total(2), 3),
        sameRatio: summarize(ratios(3)).median,
      };
    };
    const firstCpu = await cpuPerCall(1, FIRST_CALLS, false);
    while (calls < WARMUP) await oneRound(calls++, false);
    const cpu = await cpuPerCall(WINDOWS, CALLS_PER_WINDOW, true);
    while (calls < STEADY_AFTER) await oneRound(calls++, false);
    const steadyCpu = await cpuPerCall(STEADY_WINDOWS, CALLS_PER_WINDOW, false);
    return {
      era,
      raw: summarize(samples[0] ?? []),
      ours: summarize(samples[1] ?? []),
      minimal: summarize(samples[2] ?? []),
      undici: summarize(samples[3] ?? []),
      cpu,
      firstCpu,
      steadyCpu,
      wrong,
    };
  } finally {
    await Promise.all([ours.close(), minimal.close(), undici.close(), same.close(), raw.close()]);
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
        value: `${ms(e.cpu.oursMs)} vs ${ms(e.cpu.minimalMs)}: ${times(e.cpu.oursMs, e.cpu.minimalMs)}; vs the minimal server with undici ${ms(e.cpu.undiciMs)}: ${ratioOf(e.cpu)}`,
        how: `CPU time of each server process (its threads' scheduler time, lib.ts cpuMs) per call in ${WINDOWS} windows of ${CALLS_PER_WINDOW} calls after ${WARMUP} calls: the median window, and for the undici yardstick (test/bench/minimal-server.mjs --undici, in the same rotation; its round trip: median ${ms(e.undici.median)}) the median of the windows' ratios`,
      },
      {
        section,
        name: "server CPU per call, first calls and steady state",
        value: `first ${FIRST_CALLS} calls: ${ms(e.firstCpu.oursMs)} vs ${ms(e.firstCpu.undiciMs)} (undici): ${ratioOf(e.firstCpu)}; after ${STEADY_AFTER} calls: ${ms(e.steadyCpu.oursMs)} vs ${ms(e.steadyCpu.undiciMs)}: ${ratioOf(e.steadyCpu)}`,
        how: `the same servers: their first ${FIRST_CALLS} calls in one window (V8 still compiling), and ${STEADY_WINDOWS} windows of ${CALLS_PER_WINDOW} after ${STEADY_AFTER} calls, when V8 has optimised what it will`,
      },
      {
        section,
        name: "server CPU per call vs the undici server returning the same result",
        value: `after ${WARMUP} calls: ${ms(e.cpu.oursMs)} vs ${ms(e.cpu.sameMs)}: ${e.cpu.sameRatio.toFixed(2)}×; after ${STEADY_AFTER}: ${ms(e.steadyCpu.oursMs)} vs ${ms(e.steadyCpu.sameMs)}: ${e.steadyCpu.sameRatio.toFixed(2)}×; first ${FIRST_CALLS}: ${e.firstCpu.sameRatio.toFixed(2)}×`,
        how: "test/bench/minimal-server.mjs --undici --same-result, in the same rotation: structured content, the same as JSON text and a resource link per record the part names, with no check of the answer; what is left is what parts-mcp does beyond the result's shape",
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
      e.cpu.oursMs,
      e.cpu.undiciMs,
      1.3,
      ms,
      false,
      "minimal (undici)",
      e.cpu.undiciRatio,
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
