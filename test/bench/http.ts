// 3. Throughput over Streamable HTTP: `node dist/parts-mcp.js --http` (stateless, an access key)
// beside the minimal SDK server over HTTP, driven by an in-process load generator: undici with
// one connection per concurrent caller, pre-built JSON-RPC bodies (with the 2026 envelope and
// headers in that era), `concurrency` callers each sending its next get_part as soon as the last
// one is answered. Windows alternate between the two servers. Only correct results count (HTTP
// 200, no error, the part asked for). Target: parts-mcp, checking an access key on every request,
// answers at least as many calls a second as the minimal server, which checks none. On a shared
// 2-core machine the load generator and the API, in this process, take a share of the CPU, the
// same for both.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { Pool } from "undici";
import { PartsApiClient } from "../../src/client";
import { ReferenceData } from "../../src/data/reference";
import { SeenRecords } from "../../src/data/seen";
import type { EmbeddedApi } from "../../src/embedded";
import { createLogger } from "../../src/log/logger";
import { buildCatalogue } from "../../src/mcp/catalogue";
import { createServer as createMcpServer } from "../../src/mcp/server";
import { PartSearch } from "../../src/search";
import { exposedGc } from "../../src/v8-flags";
import { tools } from "../../tools";
import {
  checkRatio,
  cpuMs,
  exited,
  externalApiEnv,
  minimalSpec,
  ms,
  oursSpec,
  type Report,
  repoRoot,
  round,
  sleep,
  summarize,
  times,
  track,
} from "./lib";
import type { Era, ServerSpec } from "./rpc";

/** Concurrency levels in the 2026 era; the 2025 era at 64 only, to keep the run short. */
const LEVELS: readonly { era: Era; concurrency: number }[] = [
  { era: "2026-07-28", concurrency: 64 },
  { era: "2026-07-28", concurrency: 256 },
  { era: "2025-11-25", concurrency: 64 },
];
const FIRST_WARMUP_MS = 2_000;
const WARMUP_MS = 1_000;
const WINDOWS = 3;
const WINDOW_MS = 1_500;
const ACCESS_KEY = "bench-0123456789abcdef0123456789abcdef";

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

export interface HttpServerProcess {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** A server from `spec` with `--http --port N`; resolves once its /healthz answers. */
export async function spawnHttp(spec: ServerSpec): Promise<HttpServerProcess> {
  const port = await freePort();
  const child = track(
    spawn(spec.command, [...spec.args, "--http", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", ...spec.env },
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 10_000) stderr += chunk.toString();
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${spec.label} (HTTP) exited (${child.exitCode}): ${stderr}`);
    try {
      const response = await fetch(`${base}/healthz`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${spec.label} (HTTP) did not answer /healthz within 10 s: ${stderr}`);
    }
    await sleep(20);
  }
  return {
    url: `${base}/mcp`,
    pid: child.pid as number,
    close: async () => {
      child.kill("SIGTERM");
      await exited(child, 5_000);
    },
  };
}

/** parts-mcp over HTTP as the bench runs it: stateless, with an access key. */
export const oursHttpSpec = (
  api: EmbeddedApi,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  script?: string,
) => oursSpec({ ...externalApiEnv(api), PARTS_MCP_ACCESS_KEYS: ACCESS_KEY, ...env }, nodeArgs, script);

export interface LoadResult {
  era: Era;
  concurrency: number;
  seconds: number;
  correct: number;
  wrong: number;
  callsPerSecond: number;
  latency: ReturnType<typeof summarize>;
  /** CPU used over the measured window, in % of one core. */
  serverCpuPct: number;
  benchCpuPct: number;
}

export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "parts-mcp-bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Pre-built tools/call bodies for get_part, one per id. */
function bodies(ids: readonly string[], era: Era): { id: string; body: string }[] {
  return ids.map((id, i) => ({
    id,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "get_part", arguments: { id }, ...(era === "2026-07-28" && { _meta: ENVELOPE }) },
    }),
  }));
}

/** Headers of a tools/call POST in `era`, with the access key the bench's servers take (or `bearer`). */
export function headersFor(era: Era, tool = "get_part", bearer = ACCESS_KEY): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${bearer}`,
    "mcp-protocol-version": era,
    ...(era === "2026-07-28" && { "mcp-method": "tools/call", "mcp-name": tool }),
  };
}

/** The JSON-RPC message of a response, whether sent as JSON or as one SSE event. */
export function messageOf(text: string): { result?: { isError?: boolean }; error?: unknown } {
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
  return JSON.parse(json);
}

/** `concurrency` callers for warmupMs (not counted) then measureMs; `bearer` instead of the access key. */
export async function load(
  url: string,
  serverPid: number,
  ids: readonly string[],
  concurrency: number,
  era: Era = "2026-07-28",
  measureMs = WINDOW_MS,
  warmupMs = WARMUP_MS,
  bearer?: string,
): Promise<LoadResult> {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const headers = headersFor(era, "get_part", bearer);
  const requests = bodies(ids, era);
  const latencies: number[] = [];
  let correct = 0;
  let wrong = 0;
  let next = 0;
  let measuring = false;
  const start = performance.now();
  const measureFrom = start + warmupMs;
  const end = measureFrom + measureMs;
  let serverCpu0 = 0;
  let benchCpu0 = process.cpuUsage();
  const timer = setTimeout(() => {
    measuring = true;
    serverCpu0 = cpuMs(serverPid);
    benchCpu0 = process.cpuUsage();
  }, warmupMs);

  const caller = async () => {
    while (performance.now() < end) {
      const request = requests[next++ % requests.length] as { id: string; body: string };
      const t0 = performance.now();
      let ok = false;
      try {
        const response = await pool.request({ method: "POST", path: pathname, headers, body: request.body });
        const text = await response.body.text();
        if (response.statusCode === 200) {
          const message = messageOf(text);
          ok = message.result !== undefined && message.result.isError !== true && text.includes(request.id);
        }
      } catch {
        ok = false;
      }
      // A call counts in the window it ends in: with 256 callers on a busy machine a call may
      // take longer than the window, so counting by start would count none.
      const t1 = performance.now();
      if (!measuring || t1 < measureFrom) continue;
      if (t1 > end) break;
      if (ok) {
        correct++;
        latencies.push(t1 - t0);
      } else {
        wrong++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  clearTimeout(timer);
  const serverCpu = cpuMs(serverPid) - serverCpu0;
  const benchCpu = process.cpuUsage(benchCpu0);
  await pool.close();
  const seconds = measureMs / 1000;
  return {
    era,
    concurrency,
    seconds,
    correct,
    wrong,
    callsPerSecond: correct / seconds,
    latency: summarize(latencies),
    serverCpuPct: (100 * serverCpu) / measureMs,
    benchCpuPct: (100 * (benchCpu.user + benchCpu.system)) / 1000 / measureMs,
  };
}

/** The window with the median rate (a burst of another process spoils one window, not the figure). */
function medianWindow(windows: LoadResult[]): LoadResult & { windowRates: number[] } {
  const byRate = [...windows].sort((x, y) => x.callsPerSecond - y.callsPerSecond);
  const median = byRate[Math.floor(byRate.length / 2)] as LoadResult;
  return { ...median, windowRates: windows.map((r) => Math.round(r.callsPerSecond)) };
}

/**
 * Each level: a warm-up of each server, then WINDOWS windows of WINDOW_MS each, alternating
 * between the two servers; per server the window with the median rate is reported.
 */
export async function benchHttp(report: Report, api: EmbeddedApi, ids: readonly string[]) {
  const ours = await spawnHttp(oursHttpSpec(api));
  const minimal = await spawnHttp(minimalSpec(api));
  const results: { ours: ReturnType<typeof medianWindow>; minimal: ReturnType<typeof medianWindow> }[] = [];
  try {
    // JIT warm-up of both servers (and of this process's client and API) before the first level.
    for (const server of [ours, minimal]) {
      await load(server.url, server.pid, ids, 64, "2026-07-28", 0, FIRST_WARMUP_MS);
    }
    for (const { era, concurrency } of LEVELS) {
      const windows = { ours: [] as LoadResult[], minimal: [] as LoadResult[] };
      for (let w = 0; w < WINDOWS; w++) {
        const warmup = w === 0 ? WARMUP_MS : 0;
        windows.ours.push(await load(ours.url, ours.pid, ids, concurrency, era, WINDOW_MS, warmup));
        windows.minimal.push(await load(minimal.url, minimal.pid, ids, concurrency, era, WINDOW_MS, warmup));
      }
      results.push({ ours: medianWindow(windows.ours), minimal: medianWindow(windows.minimal) });
    }
  } finally {
    await Promise.all([ours.close(), minimal.close()]);
  }
  const describe = (r: ReturnType<typeof medianWindow>) =>
    `${Math.round(r.callsPerSecond)} calls/s, p50 ${ms(r.latency.median)}, p99 ${ms(r.latency.p99)}, ${r.wrong} wrong, server CPU ${Math.round(r.serverCpuPct)}%, ${Math.round((100 * r.callsPerSecond) / r.serverCpuPct)} calls/s per core of it (windows ${r.windowRates.join(", ")})`;
  for (const { ours: o, minimal: m } of results) {
    report.rows.push({
      section: "3 HTTP throughput",
      name: `get_part, ${o.concurrency} concurrent (${o.era})`,
      value: `parts-mcp ${describe(o)}; minimal ${describe(m)}; rate ${times(o.callsPerSecond, m.callsPerSecond)}, p99 ${times(o.latency.p99, m.latency.p99)}`,
      how: `\`--http\` servers (parts-mcp stateless with an access key, log level warn) on the bench's API; undici load generator, ${o.concurrency} connections, pre-built bodies; ${WARMUP_MS / 1000} s warm-up each (${FIRST_WARMUP_MS / 1000} s more before the first level), then ${WINDOWS} windows of ${WINDOW_MS / 1000} s alternating between the servers: the median one; correct results only (CPU in % of one core; bench and API share this process: ${Math.round(o.benchCpuPct)}%)`,
    });
  }
  for (const { ours: o, minimal: m } of results) {
    checkRatio(
      report,
      `HTTP calls/s, get_part ${o.concurrency} concurrent (${o.era}), access key checked`,
      o.callsPerSecond,
      m.callsPerSecond,
      1.0,
      (rate) => `${Math.round(rate)}/s`,
      true,
    );
  }
  const instanceBytes = serverInstanceBytes(api);
  report.rows.push({
    section: "3 HTTP throughput",
    name: "a server instance (kept idle for the next request of its token)",
    value: `${(instanceBytes / 1024).toFixed(1)} KiB`,
    how: `heap per instance of ${INSTANCES} built in this process by src/mcp/server.ts's createServer (every tool, views on), after full collections: what each idle instance of src/http/server-pool.ts holds`,
  });
  report.data.http = results.map((r) => ({
    ours: { ...r.ours, callsPerSecond: round(r.ours.callsPerSecond, 0) },
    minimal: { ...r.minimal, callsPerSecond: round(r.minimal.callsPerSecond, 0) },
  }));
  return results;
}

const INSTANCES = 1_000;

/** Heap bytes one server instance holds, measured over INSTANCES kept alive at once. */
function serverInstanceBytes(api: EmbeddedApi): number {
  const logger = createLogger({ level: "warn", secrets: [], write: () => {} });
  const client = new PartsApiClient({
    baseUrl: api.url,
    token: api.demoToken,
    timeoutMs: 1_000,
    attemptTimeoutMs: 1_000,
    maxRetries: 0,
    batchSize: 50,
    maxResponseBytes: 1 << 20,
    backoff: { baseMs: 5, capMs: 20 },
    logger,
  });
  const reference = new ReferenceData(client, api.demoToken, { ttlMs: 1_000, maxEntries: 10 });
  const seen = new SeenRecords(api.demoToken);
  const options = {
    api: client,
    reference,
    search: new PartSearch(client, reference, api.demoToken, { ttlMs: 1_000, seen }),
    seen,
    catalogue: buildCatalogue(tools, { views: true }),
    connection: { environment: "local", baseUrl: api.url, embedded: true },
    timeoutMs: 1_000,
    cacheTtlMs: 1_000,
    logger,
    mode: "http" as const,
    wireGates: true,
  };
  const gc = exposedGc();
  createMcpServer(options);
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = Array.from({ length: INSTANCES }, () => createMcpServer(options));
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / kept.length;
  return bytes;
}
