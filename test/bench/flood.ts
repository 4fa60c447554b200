// 10. A flood (issue 13): 2,000 list_parts calls (pageSize 50) at once on each transport, against
// parts-mcp as mcp.json starts it with its default limits. On stdio all 2,000 requests are
// written to the pipe at once; over HTTP 2,000 POSTs are sent at once, each on its own
// connection, to `--http --port 0`. The server's RSS is sampled every 50 ms by a separate process;
// every call must get an answer: a result, or over HTTP a 503 "busy" with Retry-After (counted
// apart). Target: peak RSS ≤ 300 MiB on each transport, every call answered.
import { spawn } from "node:child_process";
import { Pool } from "undici";
import type { TestApi } from "../../src/embedded/testing";
import { ENVELOPE, headersFor, messageOf, oursHttpSpec } from "./http";
import {
  checkTarget,
  exited,
  externalApiEnv,
  mib,
  ms,
  oursSpec,
  type Report,
  type RssSamples,
  repoRoot,
  round,
  rssMiB,
  sampleRss,
  track,
  withTimeout,
} from "./lib";
import { RpcSession } from "./rpc";

const SECTION = "10 flood";
const CALLS = 2_000;
const PAGE_SIZE = 50;
/** No flood waits longer than this for its last answer. */
const FLOOD_LIMIT_MS = 40_000;
/** A second HTTP flood, for comparison: the same calls over fewer connections than the server's
 * default connection limit (PARTS_MCP_HTTP_MAX_CONNECTIONS, 512). */
const HTTP_CONNECTIONS_WITHIN_LIMIT = 500;

interface Tally {
  /** Results with items. */
  ok: number;
  /** Over HTTP: 503 with a Retry-After header. */
  busy: number;
  /** Anything else that came back: a tool error, a JSON-RPC error, another status (by kind). */
  other: Record<string, number>;
  /** No answer: the connection was closed or reset, or the wait ran out (by error code). */
  unanswered: Record<string, number>;
}

const newTally = (): Tally => ({ ok: 0, busy: 0, other: {}, unanswered: {} });
const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const answered = (t: Tally) => t.ok + t.busy + sum(t.other);
const listed = (counts: Record<string, number>) =>
  Object.keys(counts).length === 0
    ? "0"
    : Object.entries(counts)
        .map(([k, n]) => `${n} ${k}`)
        .join(", ");

/** Pages 1..lastPage in turn: every call reads real parts. */
const pageOf = (i: number, lastPage: number) => 1 + (i % lastPage);

interface FloodResult {
  baselineMiB: number;
  rss: RssSamples;
  afterMiB: number;
  seconds: number;
  tally: Tally;
}

async function floodStdio(api: TestApi, lastPage: number): Promise<FloodResult> {
  const server = await RpcSession.start(oursSpec(externalApiEnv(api)), "2026-07-28");
  try {
    await server.call("list_parts", { page: 1, pageSize: PAGE_SIZE });
    const baselineMiB = rssMiB(server.pid);
    const sampler = sampleRss(server.pid, 50);
    const tally = newTally();
    const started = performance.now();
    const calls = Array.from({ length: CALLS }, (_, i) =>
      server
        .request(
          "tools/call",
          { name: "list_parts", arguments: { page: pageOf(i, lastPage), pageSize: PAGE_SIZE } },
          FLOOD_LIMIT_MS,
        )
        .then(
          (answer) => {
            const result = answer.result as { isError?: boolean; structuredContent?: { items?: unknown[] } };
            if (answer.error) bump(tally.other, `JSON-RPC error ${answer.error.code}`);
            else if (result?.isError) bump(tally.other, "tool error");
            else if ((result?.structuredContent?.items?.length ?? 0) > 0) tally.ok++;
            else bump(tally.other, "result without items");
          },
          (error: Error) =>
            bump(tally.unanswered, /no answer within/.test(error.message) ? "timed out" : "lost"),
        ),
    );
    await Promise.all(calls);
    const seconds = (performance.now() - started) / 1000;
    const rss = await sampler.stop();
    return { baselineMiB, rss, afterMiB: rssMiB(server.pid), seconds, tally };
  } finally {
    await server.close();
  }
}

/** `parts-mcp --http --port 0`, its URL read from the ready line on stderr. */
async function spawnHttpServer(api: TestApi) {
  const spec = oursHttpSpec(api, { PARTS_MCP_LOG_LEVEL: "info" });
  const child = track(
    spawn(spec.command, [...spec.args, "--http", "--port", "0", "--host", "127.0.0.1"], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", ...spec.env },
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
  let stderr = "";
  const url = withTimeout(
    new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        if (stderr.length < 1_000_000) stderr += chunk.toString();
        const match = /"url":"(http:\/\/[^"]+)"/.exec(stderr);
        if (match) resolve(match[1] as string);
      });
      child.once("exit", (code) => reject(new Error(`parts-mcp --http exited (${code}): ${stderr}`)));
    }),
    10_000,
    "parts-mcp --http ready line",
  );
  return {
    url: await url,
    pid: child.pid as number,
    stderr: () => stderr,
    close: async () => {
      child.kill("SIGTERM");
      await exited(child, 10_000);
    },
  };
}

interface HttpFloodResult extends FloodResult {
  connections: number;
  retryAfter: string[];
  /** The server's "connection limit reached" warnings on stderr. */
  limitWarnings: number;
}

async function floodHttp(api: TestApi, lastPage: number, connections: number): Promise<HttpFloodResult> {
  const server = await spawnHttpServer(api);
  const { origin, pathname } = new URL(server.url);
  const headers = headersFor("2026-07-28", "list_parts");
  const body = (i: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: {
        name: "list_parts",
        arguments: { page: pageOf(i, lastPage), pageSize: PAGE_SIZE },
        _meta: ENVELOPE,
      },
    });
  const timeouts = {
    headersTimeout: FLOOD_LIMIT_MS,
    bodyTimeout: FLOOD_LIMIT_MS,
    connectTimeout: FLOOD_LIMIT_MS,
  };
  const pool = new Pool(origin, { connections, pipelining: 1, ...timeouts });
  try {
    // One call first (its connection closed after it), so that the flood finds a warm process.
    const warm = new Pool(origin, { connections: 1, ...timeouts });
    const first = await warm.request({ method: "POST", path: pathname, headers, body: body(0) });
    await first.body.text();
    await warm.close();
    if (first.statusCode !== 200) throw new Error(`list_parts over HTTP: status ${first.statusCode}`);
    const baselineMiB = rssMiB(server.pid);
    const sampler = sampleRss(server.pid, 50);
    const tally = newTally();
    const retryAfter = new Set<string>();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        try {
          const response = await pool.request({ method: "POST", path: pathname, headers, body: body(i) });
          const text = await response.body.text();
          const retry = response.headers["retry-after"];
          if (response.statusCode === 200) {
            const message = messageOf(text) as {
              result?: { isError?: boolean; structuredContent?: { items?: unknown[] } };
              error?: { code: number };
            };
            if (message.error) bump(tally.other, `JSON-RPC error ${message.error.code}`);
            else if (message.result?.isError) bump(tally.other, "tool error");
            else if ((message.result?.structuredContent?.items?.length ?? 0) > 0) tally.ok++;
            else bump(tally.other, "result without items");
          } else if (response.statusCode === 503 && retry !== undefined) {
            tally.busy++;
            retryAfter.add(String(retry));
          } else {
            bump(tally.other, `HTTP ${response.statusCode}`);
          }
        } catch (error) {
          const code = (error as { code?: string }).code ?? (error as Error).name;
          bump(tally.unanswered, code);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const rss = await sampler.stop();
    return {
      connections,
      baselineMiB,
      rss,
      afterMiB: rssMiB(server.pid),
      seconds,
      tally,
      retryAfter: [...retryAfter],
      limitWarnings: server.stderr().split("connection limit reached").length - 1,
    };
  } finally {
    await pool.close();
    await server.close();
  }
}

export async function benchFlood(report: Report, api: TestApi) {
  const org = api.accounts[0]?.orgId as string;
  const lastPage = Math.ceil(api.store.viewSize(org) / PAGE_SIZE);
  const stdio = await floodStdio(api, lastPage);
  const http = await floodHttp(api, lastPage, CALLS);
  const withinLimit = await floodHttp(api, lastPage, HTTP_CONNECTIONS_WITHIN_LIMIT);
  const describe = (r: FloodResult) =>
    `peak ${mib(r.rss.peakMiB)} (from ${mib(r.baselineMiB)}; ${mib(r.afterMiB)} once all answered); ${answered(r.tally)}/${CALLS} answered in ${round(r.seconds, 1)} s: ${r.tally.ok} results, ${r.tally.busy} busy, other ${listed(r.tally.other)}; unanswered ${listed(r.tally.unanswered)}`;
  const sampling = (r: FloodResult) =>
    `VmRSS sampled every 50 ms by a separate process (${r.rss.samples} samples, longest gap ${ms(r.rss.maxGapMs)})`;
  report.rows.push(
    {
      section: SECTION,
      name: `stdio: ${CALLS} list_parts at once`,
      value: describe(stdio),
      how: `pageSize ${PAGE_SIZE}, pages 1..${lastPage} in turn, all ${CALLS} requests written to the pipe at once; default limits; ${sampling(stdio)}; 2026 era, bare JSON-RPC client`,
    },
    ...[http, withinLimit].map((r) => ({
      section: SECTION,
      name: `HTTP: ${CALLS} list_parts at once, ${r.connections} connections`,
      value: `${describe(r)}${r.retryAfter.length > 0 ? `; Retry-After ${r.retryAfter.join(", ")}` : ""}; server warned "connection limit reached" ${r.limitWarnings} time(s)`,
      how: `\`--http --port 0\` (stateless, access key, log level info), ${CALLS} POSTs at once over ${r.connections} connections (undici, ${r.connections === CALLS ? "one per call" : "pipelining 1"}), pageSize ${PAGE_SIZE}; default limits${r.connections === CALLS ? "" : "; no target: shows the calls when connections stay within the limit"}; ${sampling(r)}`,
    })),
  );
  report.data.flood = { calls: CALLS, stdio, http, httpWithinLimit: withinLimit };
  for (const [name, r] of [
    ["stdio", stdio],
    ["HTTP", http],
  ] as const) {
    checkTarget(report, `flood ${name}: peak RSS, ${CALLS} calls at once`, r.rss.peakMiB, 300, "MiB");
    checkTarget(report, `flood ${name}: calls answered`, answered(r.tally), CALLS, "calls", true);
  }
}
