// 6. Memory: RSS (VmRSS of /proc/<pid>/status) of parts-mcp idle, beside the minimal SDK server
// idle, in each protocol era; of parts-mcp as shipped (the embedded API in its process); and its
// growth over 20,000 get_part calls on 20,000 different parts of the large catalogue (so that its
// caches fill up to their caps, as in long use), once idle again.
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EmbeddedApi } from "../../src/embedded";
import {
  checkRatio,
  externalApiEnv,
  mib,
  minimalSpec,
  oursSpec,
  type Report,
  round,
  rssMiB,
  sleep,
  summarize,
  times,
} from "./lib";
import { rawGetter } from "./overhead";
import { ERAS, type Era, RpcSession, type ServerSpec } from "./rpc";

const GROWTH_CALLS = 20_000;
const IN_FLIGHT = 4;
const SETTLE_MS = 1_000;
/** Idle: long enough after the last call for parts-mcp's idle-time collection (src/idle-gc.ts, 2 s). */
const IDLE_AFTER_MS = 5_000;
const IDLE_ROUNDS = 3;
const CHECKPOINTS = 4;
/** Longest wait, after the load, for V8's memory reducer (it runs some 8 to 30 s after the last GC). */
const IDLE_WAIT_MS = 20_000;

/** Ids of `count` parts the demo token can read, from the API's own listing. */
async function partIds(api: EmbeddedApi, count: number): Promise<string[]> {
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

/** Started, opened in `era`, one get_part answered: a server as a client leaves it between calls. */
async function oneCallIn(spec: ServerSpec, era: Era, partId: string): Promise<RpcSession> {
  const session = await RpcSession.start(spec, era);
  const result = await session.call("get_part", { id: partId });
  if (result.isError) throw new Error(`${spec.label}: get_part failed: ${JSON.stringify(result.content)}`);
  return session;
}

/** Idle RSS of parts-mcp and of the minimal server in each era, all started together, per round. */
async function idleRss(api: EmbeddedApi, partId: string, ownPartId: string) {
  const samples = new Map<string, number[]>();
  for (let round = 0; round < IDLE_ROUNDS; round++) {
    // Each server is sampled at the same times after its own call: the servers start one after
    // another, and the idle-time collection runs 2 s after a server's last call.
    const started = new Map<string, { session: RpcSession; calledAt: number }>();
    const start = async (key: string, spec: ServerSpec, era: Era, id: string) => {
      const session = await oneCallIn(spec, era, id);
      started.set(key, { session, calledAt: performance.now() });
    };
    try {
      for (const era of ERAS) {
        await start(`ours ${era}`, oursSpec(externalApiEnv(api)), era, partId);
        await start(`minimal ${era}`, minimalSpec(api), era, partId);
      }
      await start("own", oursSpec(), "2025-11-25", ownPartId);
      const record = (label: string, pid: number) =>
        samples.set(label, [...(samples.get(label) ?? []), rssMiB(pid)]);
      await Promise.all(
        [...started].map(async ([key, { session, calledAt }]) => {
          await sleep(calledAt + SETTLE_MS - performance.now());
          record(`settled ${key}`, session.pid);
          await sleep(calledAt + IDLE_AFTER_MS - performance.now());
          record(`idle ${key}`, session.pid);
        }),
      );
    } finally {
      await Promise.all([...started.values()].map(({ session }) => session.close()));
    }
  }
  const median = (key: string) => summarize(samples.get(key) ?? []).median;
  const at = (when: "settled" | "idle") => ({
    eras: ERAS.map((era) => ({
      era,
      ours: median(`${when} ours ${era}`),
      minimal: median(`${when} minimal ${era}`),
    })),
    own: median(`${when} own`),
  });
  return { settled: at("settled"), idle: at("idle") };
}

/** Growth over GROWTH_CALLS different parts, with a heap probe for the live JS heap. */
async function growth(api: EmbeddedApi, samplePartId: string) {
  const ids = await partIds(api, GROWTH_CALLS);
  // The preload only answers SIGUSR2 with the JS heap's figures (test/bench/heap-probe.mjs).
  const heapFile = join(tmpdir(), `parts-mcp-bench-heap-${process.pid}.jsonl`);
  rmSync(heapFile, { force: true });
  const server = await RpcSession.start(
    oursSpec({ ...externalApiEnv(api), PARTS_BENCH_HEAP_FILE: heapFile }, [
      "--import",
      "./test/bench/heap-probe.mjs",
    ]),
    "2026-07-28",
  );
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
        if (result.isError || result.structuredContent?.id !== id) wrong++;
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
    // Idle: a full GC (the probe's, on SIGUSR2), then V8's memory reducer gives back what the
    // load made it reserve (young generation grown to 16 MiB semi-spaces, old generation
    // headroom); it runs some 8 to 30 s after the last GC. What remains is growth.
    const idleFrom = Date.now();
    const heapEnd = await heapUsedMiB();
    await sleep(SETTLE_MS);
    while (Date.now() - idleFrom < IDLE_WAIT_MS && rssMiB(server.pid) > start + (afterLoad - start) / 2) {
      await sleep(500);
    }
    await sleep(SETTLE_MS);
    const idleSeconds = (Date.now() - idleFrom) / 1000;
    const end = rssMiB(server.pid);
    return { start, afterLoad, end, peak, idleSeconds, heapStart, heapEnd, checkpoints, wrong };
  } finally {
    await server.close();
    rmSync(heapFile, { force: true });
  }
}

export async function benchMemory(report: Report, api: EmbeddedApi, samplePartId: string, ownPartId: string) {
  const { settled, idle } = await idleRss(api, samplePartId, ownPartId);
  const g = await growth(api, samplePartId);
  const growthMiB = g.end - g.start;
  const rounds = `median of ${IDLE_ROUNDS} rounds, each round starting every server anew, all of them side by side`;
  const moments = [
    {
      name: "RSS just after a call",
      figures: settled,
      how: `VmRSS ${SETTLE_MS / 1000} s after start and one get_part (before parts-mcp's idle-time collection); ${rounds}`,
    },
    {
      name: "RSS idle",
      figures: idle,
      how: `VmRSS of the same servers ${IDLE_AFTER_MS / 1000} s after that call: idle, parts-mcp's idle-time collection (src/idle-gc.ts, 2 s) done; ${rounds}`,
    },
  ];
  for (const { name, figures, how } of moments) {
    for (const e of figures.eras) {
      report.rows.push({
        section: "6 memory",
        name: `${name} (${e.era}): parts-mcp vs minimal`,
        value: `${mib(e.ours)} vs ${mib(e.minimal)}: ${times(e.ours, e.minimal)}`,
        how: `${how}; both against the bench's API`,
      });
    }
    const minimal2025 = figures.eras.find((e) => e.era === "2025-11-25")?.minimal ?? Number.NaN;
    report.rows.push({
      section: "6 memory",
      name: `${name}, own embedded API (mcp.json as shipped)`,
      value: `${mib(figures.own)}: ${times(figures.own, minimal2025)} the minimal server's`,
      how: `${how}; the embedded API (sample data) runs in the server process`,
    });
  }
  report.rows.push(
    {
      section: "6 memory",
      name: `RSS under load (${GROWTH_CALLS} get_part calls)`,
      value: `${mib(g.afterLoad - g.start)} above idle right after the load (${mib(g.start)} → ${mib(g.afterLoad)}, peak ${mib(g.peak)}); ${g.wrong} wrong`,
      how: `2026 era; ${GROWTH_CALLS} different parts, ${IN_FLIGHT} calls in flight; RSS at ${g.checkpoints.map((c) => `${c.calls}: ${c.rssMiB}`).join(", ")} MiB (calls: MiB)`,
    },
    {
      section: "6 memory",
      name: "live JS heap after a full GC, start → idle again",
      value: `${mib(g.heapStart)} → ${mib(g.heapEnd)} (${g.heapEnd - g.heapStart >= 0 ? "+" : ""}${mib(g.heapEnd - g.heapStart)})`,
      how: "heapUsed (process.memoryUsage) of the same server after a forced full GC, through a preload that answers SIGUSR2 (test/bench/heap-probe.mjs)",
    },
    {
      section: "6 memory",
      name: `RSS growth over ${GROWTH_CALLS} calls (idle again)`,
      value: `${mib(growthMiB)} (${mib(g.start)} → ${mib(g.end)})`,
      how: `the same server idle again: RSS ${Math.round(g.idleSeconds)} s after the load, after a full GC and once V8's memory reducer has returned the load's heap headroom (polled every 0.5 s, at most ${IDLE_WAIT_MS / 1000} s, then ${SETTLE_MS / 1000} s more)`,
    },
  );
  for (const e of idle.eras) checkRatio(report, `idle RSS (${e.era})`, e.ours, e.minimal, 0.85, mib);
  report.data.memory = { settled, idle, ...g, growth: growthMiB };
  return { idle, growth: growthMiB };
}
