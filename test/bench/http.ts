// The HTTP rows: 64 callers of get_part at once against parts-mcp's plain bundle (`--http`, an
// access key checked on every request) and against the minimal official-SDK server served as the
// SDK's guide serves statelessly (a new instance per request, the same key checked), measured in
// alternating windows; then 2,000 calls at once, each on its own connection.
import { Pool } from "undici";
import type { TestApi } from "../../src/embedded/testing";
import {
  ACCESS_KEY,
  minimalSpec,
  oursSpec,
  type Row,
  ratioRow,
  round,
  sampleRss,
  sleep,
  startHttp,
  withTimeout,
} from "./lib";

const CONCURRENCY = 64;
const WINDOW_MS = 3_000;
const WARMUP_MS = 1_500;
const ROUNDS = 3;
const FLOOD_CALLS = 2_000;

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${ACCESS_KEY}`,
  "mcp-protocol-version": "2025-11-25",
};

const callBody = (name: string, args: Record<string, unknown>, id = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

/** Whether an answer is a tool result (JSON, or one SSE event), not an error. */
function isResult(text: string): boolean {
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
  const message = JSON.parse(json) as { result?: { isError?: boolean } };
  return message.result !== undefined && message.result.isError !== true;
}

/** Calls answered per second by `CONCURRENCY` callers looping on get_part for `ms`. */
async function throughput(url: string, ids: readonly string[], ms: number): Promise<number> {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: CONCURRENCY });
  let done = 0;
  const until = performance.now() + ms;
  const caller = async (offset: number) => {
    for (let i = offset; performance.now() < until; i += CONCURRENCY) {
      const body = callBody("get_part", { id: ids[i % ids.length] });
      const response = await pool.request({ method: "POST", path: pathname, headers: HEADERS, body });
      const text = await response.body.text();
      if (response.statusCode !== 200 || !isResult(text))
        throw new Error(`HTTP ${response.statusCode}: ${text}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => caller(i)));
  await pool.close();
  return done / (ms / 1000);
}

export async function httpRows(api: TestApi, ids: readonly string[]): Promise<Row[]> {
  const ours = await startHttp(
    oursSpec(api, ["--http", "--port", "0"], {
      PARTS_MCP_ACCESS_KEYS: ACCESS_KEY,
      PARTS_MCP_LOG_LEVEL: "info",
    }),
  );
  const minimal = await startHttp(minimalSpec(api, ["--http", "--port", "0", "--key", ACCESS_KEY]));
  try {
    await throughput(ours.url, ids, WARMUP_MS);
    await throughput(minimal.url, ids, WARMUP_MS);
    const rates = { ours: [] as number[], minimal: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      rates.ours.push(await throughput(ours.url, ids, WINDOW_MS));
      rates.minimal.push(await throughput(minimal.url, ids, WINDOW_MS));
    }
    const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);
    const flood = await floodRow(ours.url, ours.pid);
    return [
      ratioRow(
        `HTTP: ${CONCURRENCY} concurrent get_part, calls/s`,
        sum(rates.ours) / ROUNDS,
        sum(rates.minimal) / ROUNDS,
        "calls/s",
        0.8,
        `${ROUNDS} alternating windows of ${WINDOW_MS / 1000} s after ${WARMUP_MS / 1000} s; 2025-11-25, key checked; vs the minimal SDK server with an instance per request`,
        true,
      ),
      flood,
    ];
  } finally {
    await ours.stop();
    await minimal.stop();
  }
}

/** `calls` list_parts POSTed at once, each on its own connection: all answered (a 503 busy is an answer). */
async function floodRow(url: string, pid: number): Promise<Row> {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: FLOOD_CALLS, pipelining: 1 });
  await sleep(500);
  const sampler = sampleRss(pid);
  const outcomes = await Promise.all(
    Array.from({ length: FLOOD_CALLS }, (_, i) =>
      withTimeout(
        pool
          .request({
            method: "POST",
            path: pathname,
            headers: HEADERS,
            body: callBody("list_parts", { pageSize: 50 }, i + 1),
          })
          .then(async (response) => {
            const text = await response.body.text();
            if (response.statusCode === 503 && response.headers["retry-after"]) return "busy";
            return response.statusCode === 200 && isResult(text) ? "ok" : "other";
          }),
        120_000,
        "flood call",
      ).catch(() => "unanswered"),
    ),
  );
  const peak = sampler.stop();
  await pool.close();
  const count = (kind: string) => outcomes.filter((outcome) => outcome === kind).length;
  const answered = count("ok") + count("busy");
  return {
    name: `HTTP: ${FLOOD_CALLS} calls at once, peak RSS`,
    measured: `${count("ok")} results, ${count("busy")} busy (503 Retry-After), ${count("other")} other, ${count("unanswered")} unanswered; peak ${round(peak, 1)} MiB`,
    value: answered === FLOOD_CALLS ? peak : Number.POSITIVE_INFINITY,
    target: { limit: 250, unit: "MiB" },
    how: "list_parts pageSize 50 POSTed at once, one connection each; VmRSS sampled every 50 ms; a call unanswered fails the row",
  };
}
