// 3. Throughput over Streamable HTTP: `node dist/parts-mcp.js --http` (stateless, an access key),
// driven by an in-process load generator: undici with one connection per concurrent caller,
// pre-built JSON-RPC bodies, `concurrency` callers each sending its next get_part as soon as the
// last one is answered. Only correct results count (HTTP 200, no error, the part asked for).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { Pool } from "undici";
import type { EmbeddedApi } from "../../src/embedded";
import {
  cpuMs,
  exited,
  externalApiEnv,
  ms,
  type Report,
  repoRoot,
  round,
  serverCommand,
  sleep,
  summarize,
  track,
} from "./lib";

export const LEVELS = [16, 64, 256] as const;
const WARMUP_MS = 1_000;
const MEASURE_MS = 4_000;
const WINDOWS = 3;
const WINDOW_MS = 2_000;
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

/** The HTTP server as a client of this API; resolves once /healthz answers. */
export async function spawnHttpServer(
  api: EmbeddedApi,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  script?: string,
): Promise<HttpServerProcess> {
  const { command, args, env: baseEnv } = serverCommand();
  const port = await freePort();
  const child = track(
    spawn(
      command,
      [...nodeArgs, ...(script ? [script] : args), "--http", "--port", String(port), "--host", "127.0.0.1"],
      {
        cwd: repoRoot,
        env: {
          PATH: process.env.PATH ?? "",
          ...baseEnv,
          ...externalApiEnv(api),
          PARTS_MCP_LOG_LEVEL: "warn",
          PARTS_MCP_ACCESS_KEYS: ACCESS_KEY,
          ...env,
        },
        stdio: ["ignore", "ignore", "pipe"],
      },
    ),
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 10_000) stderr += chunk.toString();
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the HTTP server exited (${child.exitCode}): ${stderr}`);
    try {
      const response = await fetch(`${base}/healthz`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the HTTP server did not answer /healthz within 10 s: ${stderr}`);
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

export interface LoadResult {
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

/** Pre-built tools/call bodies for get_part, one per id. */
function bodies(ids: readonly string[]): { id: string; body: string }[] {
  return ids.map((id, i) => ({
    id,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "get_part", arguments: { id } },
    }),
  }));
}

/** `concurrency` callers for warmupMs (not counted) then measureMs. */
export async function load(
  url: string,
  serverPid: number,
  ids: readonly string[],
  concurrency: number,
  measureMs = MEASURE_MS,
  warmupMs = WARMUP_MS,
): Promise<LoadResult> {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${ACCESS_KEY}`,
    "mcp-protocol-version": "2025-06-18",
  };
  const requests = bodies(ids);
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
          const message = JSON.parse(text) as {
            result?: { isError?: boolean; structuredContent?: { id?: string } };
          };
          ok = message.result?.isError !== true && message.result?.structuredContent?.id === request.id;
        }
      } catch {
        ok = false;
      }
      const t1 = performance.now();
      if (!measuring || t0 < measureFrom) continue;
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

/**
 * Each level: a warm-up, then WINDOWS windows of WINDOW_MS; the window with the median rate is
 * reported (a burst of another process on this 2-core machine spoils one window, not the figure),
 * with the rates of all windows beside it.
 */
export async function benchHttp(report: Report, api: EmbeddedApi, ids: readonly string[]) {
  const server = await spawnHttpServer(api);
  const results: (LoadResult & { windowRates: number[] })[] = [];
  try {
    for (const concurrency of LEVELS) {
      const windows: LoadResult[] = [];
      for (let w = 0; w < WINDOWS; w++) {
        windows.push(
          await load(server.url, server.pid, ids, concurrency, WINDOW_MS, w === 0 ? WARMUP_MS : 0),
        );
      }
      const byRate = [...windows].sort((x, y) => x.callsPerSecond - y.callsPerSecond);
      const median = byRate[Math.floor(byRate.length / 2)] as LoadResult;
      results.push({ ...median, windowRates: windows.map((r) => Math.round(r.callsPerSecond)) });
    }
  } finally {
    await server.close();
  }
  for (const r of results) {
    report.rows.push({
      section: "3 HTTP throughput",
      name: `get_part, ${r.concurrency} concurrent`,
      value: `${Math.round(r.callsPerSecond)} calls/s, p50 ${ms(r.latency.median)}, p99 ${ms(r.latency.p99)}; ${r.wrong} wrong; CPU server ${Math.round(r.serverCpuPct)}%, bench+API ${Math.round(r.benchCpuPct)}% (windows: ${r.windowRates.join(", ")} calls/s)`,
      how: `\`--http\` server (stateless, access key, log level warn) on the in-process API; undici load generator, ${r.concurrency} connections, pre-built bodies; ${WARMUP_MS / 1000} s warm-up, then ${WINDOWS} windows of ${WINDOW_MS / 1000} s: the median one; correct results only (CPU in % of one core)`,
    });
  }
  report.data.http = results.map((r) => ({ ...r, callsPerSecond: round(r.callsPerSecond, 0) }));
  return results;
}
