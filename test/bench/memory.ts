// 6. Memory: RSS of the server process (VmRSS of /proc/<pid>/status) idle, after start and one
// call, and its growth over 20,000 get_part calls on 20,000 different parts of the large
// catalogue (so the server's caches fill up to their caps, as in long use).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { EmbeddedApi } from "../../src/embedded";
import { externalApiEnv, type Report, repoRoot, round, rssMiB, sleep, spawnServer } from "./lib";
import { rawGetter } from "./overhead";

export const GROWTH_CALLS = 20_000;
const IN_FLIGHT = 4;
const SETTLE_MS = 1_000;
const CHECKPOINTS = 4;
/** Longest wait, after the load, for V8's memory reducer (it runs some 8 to 30 s after the last GC). */
const IDLE_WAIT_MS = 45_000;

/** Ids of `count` parts the demo token can read, from the API's own listing. */
export async function partIds(api: EmbeddedApi, count: number): Promise<string[]> {
  const raw = rawGetter(api);
  try {
    const ids: string[] = [];
    for (let page = 1; ids.length < count; page++) {
      const { body } = await raw.get(`/v1/parts?page=${page}&pageSize=50`);
      const { items, hasMore } = JSON.parse(body) as { items: { id: string }[]; hasMore: boolean };
      ids.push(...items.map((p) => p.id));
      if (!hasMore) break;
    }
    return ids.slice(0, count);
  } finally {
    await raw.close();
  }
}

async function idleRss(env: Record<string, string>, partId: string) {
  const server = await spawnServer({ env: { PARTS_MCP_LOG_LEVEL: "warn", ...env } });
  try {
    const result = await server.call("get_part", { id: partId });
    if (result.isError) throw new Error(`get_part failed: ${JSON.stringify(result.content)}`);
    await sleep(SETTLE_MS);
    return rssMiB(server.pid);
  } finally {
    await server.close();
  }
}

export async function benchMemory(report: Report, api: EmbeddedApi, samplePartId: string) {
  const ownIdle = await idleRss({}, samplePartId);
  const externalIdle = await idleRss(externalApiEnv(api), samplePartId);

  const ids = await partIds(api, GROWTH_CALLS);
  // The preload only answers SIGUSR2 with the JS heap's figures (test/bench/heap-probe.mjs).
  const heapFile = join(repoRoot, `.bench/heap-${process.pid}.jsonl`);
  rmSync(heapFile, { force: true });
  const server = await spawnServer({
    env: { ...externalApiEnv(api), PARTS_MCP_LOG_LEVEL: "warn", PARTS_BENCH_HEAP_FILE: heapFile },
    nodeArgs: ["--import", "./test/bench/heap-probe.mjs"],
  });
  const heapUsedMiB = async () => {
    process.kill(server.pid, "SIGUSR2");
    for (let i = 0; i < 20; i++) {
      await sleep(50);
      const lines = readFileSync(heapFile, { encoding: "utf8", flag: "a+" }).trim().split("\n");
      const last = lines[lines.length - 1];
      if (last) {
        rmSync(heapFile, { force: true });
        return (JSON.parse(last) as { memory: { heapUsed: number } }).memory.heapUsed / 1048576;
      }
    }
    return Number.NaN;
  };
  const checkpoints: { calls: number; rssMiB: number }[] = [];
  let wrong = 0;
  try {
    await server.call("get_part", { id: samplePartId });
    await sleep(SETTLE_MS);
    const start = rssMiB(server.pid);
    const heapStart = await heapUsedMiB();
    checkpoints.push({ calls: 0, rssMiB: round(start, 1) });
    let next = 0;
    let peak = start;
    const every = GROWTH_CALLS / CHECKPOINTS;
    const worker = async () => {
      while (next < ids.length) {
        const i = next++;
        const id = ids[i] as string;
        const result = await server.call("get_part", { id });
        if (result.isError || (result.structuredContent as { id?: string } | undefined)?.id !== id) wrong++;
        if ((i + 1) % 500 === 0) peak = Math.max(peak, rssMiB(server.pid));
        if ((i + 1) % every === 0 && i + 1 < GROWTH_CALLS) {
          checkpoints.push({ calls: i + 1, rssMiB: round(rssMiB(server.pid), 1) });
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    await sleep(SETTLE_MS);
    const afterLoad = rssMiB(server.pid);
    checkpoints.push({ calls: GROWTH_CALLS, rssMiB: round(afterLoad, 1) });
    // Idle: V8 gives back what the load made it reserve (young generation grown to 16 MiB
    // semi-spaces, old generation headroom) once its memory reducer runs. What remains is growth.
    const idleFrom = Date.now();
    while (Date.now() - idleFrom < IDLE_WAIT_MS && rssMiB(server.pid) > start + (afterLoad - start) / 2) {
      await sleep(500);
    }
    await sleep(2 * SETTLE_MS);
    const idleSeconds = (Date.now() - idleFrom) / 1000;
    const end = rssMiB(server.pid);
    const heapEnd = await heapUsedMiB();
    const growth = end - start;
    const mib = (v: number) => `${round(v, 1)} MiB`;
    report.rows.push(
      {
        section: "6 memory",
        name: "RSS idle, own embedded API (as mcp.json)",
        value: mib(ownIdle),
        how: `VmRSS ${SETTLE_MS / 1000} s after start and one get_part; the embedded API (sample data) runs in the server process`,
      },
      {
        section: "6 memory",
        name: "RSS idle, external API",
        value: mib(externalIdle),
        how: `VmRSS ${SETTLE_MS / 1000} s after start and one get_part; PARTS_API_BASE_URL set`,
      },
      {
        section: "6 memory",
        name: `RSS under load (${GROWTH_CALLS} get_part calls)`,
        value: `${mib(afterLoad - start)} above idle right after the load (${mib(start)} → ${mib(afterLoad)}, peak ${mib(peak)}); ${wrong} wrong`,
        how: `external API; ${GROWTH_CALLS} different parts, ${IN_FLIGHT} calls in flight; RSS at ${checkpoints.map((c) => `${c.calls}: ${c.rssMiB}`).join(", ")} MiB (calls: MiB)`,
      },
      {
        section: "6 memory",
        name: "live JS heap, start → idle again",
        value: `${mib(heapStart)} → ${mib(heapEnd)} (${heapEnd - heapStart >= 0 ? "+" : ""}${mib(heapEnd - heapStart)})`,
        how: "heapUsed (process.memoryUsage) of the same server, through a preload that answers SIGUSR2 (test/bench/heap-probe.mjs)",
      },
      {
        section: "6 memory",
        name: `RSS growth over ${GROWTH_CALLS} calls (idle again)`,
        value: `${mib(growth)} (${mib(start)} → ${mib(end)})`,
        how: `the same server idle again: RSS ${Math.round(idleSeconds)} s after the load, once V8's memory reducer has returned the load's heap headroom (polled every 0.5 s, at most ${IDLE_WAIT_MS / 1000} s, then ${(2 * SETTLE_MS) / 1000} s more)`,
      },
    );
    report.data.memory = {
      ownIdle,
      externalIdle,
      start,
      afterLoad,
      end,
      growth,
      peak,
      idleSeconds,
      heapStart,
      heapEnd,
      checkpoints,
      wrong,
    };
    return { ownIdle, externalIdle, growth };
  } finally {
    await server.close();
    rmSync(heapFile, { force: true });
  }
}
