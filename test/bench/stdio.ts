// The stdio rows: parts-mcp's plain bundle beside the minimal official-SDK server calling the API
// with undici (started from its sources, as such a server ships), measured side by side in one
// run, the two alternating so that a busy machine slows both alike: cold start to the first
// get_part answered, idle RSS, wall time and CPU per get_part; then 2,000 calls at once.
import type { TestApi } from "../../src/embedded/testing";
import {
  cpuMs,
  median,
  minimalSpec,
  oursSpec,
  type Row,
  ratioRow,
  round,
  rssMiB,
  type ServerSpec,
  sampleRss,
  sleep,
} from "./lib";
import { RpcSession } from "./rpc";

const STARTS = 5;
const ROUNDS = 5;
const CALLS_PER_ROUND = 200;
const WARMUP_CALLS = 300;
const FLOOD_CALLS = 2_000;

/** Both servers of one kind: a spawn, its first get_part, its RSS once idle. */
async function coldStart(spec: ServerSpec, id: string): Promise<number> {
  const server = new RpcSession(spec);
  try {
    await server.open("2025-11-25");
    const result = await server.call("get_part", { id });
    if (result.isError) throw new Error(`${spec.label}: get_part failed`);
    return performance.now() - server.spawnedAt;
  } finally {
    await server.kill();
  }
}

/** `calls` get_part one after another: wall ms and server CPU ms per call. */
async function window(server: RpcSession, ids: readonly string[], calls: number) {
  const cpu0 = cpuMs(server.pid);
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    const result = await server.call("get_part", { id: ids[i % ids.length] as string });
    if (result.isError) throw new Error(`${server.spec.label}: get_part failed`);
  }
  return { wall: (performance.now() - t0) / calls, cpu: (cpuMs(server.pid) - cpu0) / calls };
}

export async function stdioRows(api: TestApi, ids: readonly string[]): Promise<Row[]> {
  const specs = { ours: oursSpec(api), minimal: minimalSpec(api) };
  const starts = { ours: [] as number[], minimal: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    starts.ours.push(await coldStart(specs.ours, ids[0] as string));
    starts.minimal.push(await coldStart(specs.minimal, ids[0] as string));
  }

  const ours = await RpcSession.start(specs.ours, "2025-11-25");
  const minimal = await RpcSession.start(specs.minimal, "2025-11-25");
  try {
    await window(ours, ids, WARMUP_CALLS);
    await window(minimal, ids, WARMUP_CALLS);
    await sleep(2_000);
    const idle = { ours: rssMiB(ours.pid), minimal: rssMiB(minimal.pid) };
    const per = {
      ours: [] as { wall: number; cpu: number }[],
      minimal: [] as { wall: number; cpu: number }[],
    };
    for (let i = 0; i < ROUNDS; i++) {
      per.ours.push(await window(ours, ids, CALLS_PER_ROUND));
      per.minimal.push(await window(minimal, ids, CALLS_PER_ROUND));
    }
    const wall = {
      ours: median(per.ours.map((w) => w.wall)),
      minimal: median(per.minimal.map((w) => w.wall)),
    };
    const cpu = { ours: median(per.ours.map((w) => w.cpu)), minimal: median(per.minimal.map((w) => w.cpu)) };
    const sideBySide = `${ROUNDS} alternating rounds of ${CALLS_PER_ROUND} sequential get_part after ${WARMUP_CALLS}; median round; vs the minimal SDK server (undici)`;
    return [
      ratioRow("stdio: wall time per get_part", wall.ours, wall.minimal, "ms", 1.3, sideBySide),
      ratioRow(
        "stdio: server CPU per get_part",
        cpu.ours,
        cpu.minimal,
        "ms",
        1.5,
        `${sideBySide}; /proc sched`,
      ),
      ratioRow(
        "cold start to first get_part answered",
        median(starts.ours),
        median(starts.minimal),
        "ms",
        1.0,
        `spawn to the answer of the first get_part (after initialize), median of ${STARTS} alternating starts; minimal server from its sources`,
      ),
      ratioRow(
        "idle RSS",
        idle.ours,
        idle.minimal,
        "MiB",
        1.1,
        `VmRSS 2 s after ${WARMUP_CALLS} get_part calls; vs the minimal SDK server`,
      ),
      await floodRow(ours, FLOOD_CALLS),
    ];
  } finally {
    await ours.close();
    await minimal.close();
  }
}

/** `calls` list_parts written to the pipe at once: every one must be answered; the peak RSS. */
async function floodRow(server: RpcSession, calls: number): Promise<Row> {
  const sampler = sampleRss(server.pid);
  const answers = await Promise.all(
    Array.from({ length: calls }, () =>
      server.request("tools/call", { name: "list_parts", arguments: { pageSize: 50 } }, 120_000).then(
        (answer) => (answer.result || answer.error ? 1 : 0),
        () => 0,
      ),
    ),
  );
  const peak = sampler.stop();
  const answered = answers.reduce<number>((a, b) => a + b, 0);
  return {
    name: `stdio: ${calls} calls at once, peak RSS`,
    measured: `${answered}/${calls} answered, peak ${round(peak, 1)} MiB`,
    value: answered === calls ? peak : Number.POSITIVE_INFINITY,
    target: { limit: 250, unit: "MiB" },
    how: "list_parts pageSize 50, all written to stdin at once; VmRSS sampled every 50 ms; a call unanswered fails the row",
  };
}
