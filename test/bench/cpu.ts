// 12. CPU per request, whatever a client sends: the server's own CPU time (user + system, read
// from /proc, not wall time) of the costliest request of each kind that works on what the server
// has seen, at 100,000 parts with hostile inputs: completion (a long value, many words),
// did-you-mean on a miss (an unknown part id, an unknown code) and search (a long text, many
// words). The server first reads the whole catalogue (its index then holds every part) and shows
// 5,000 part ids, so each request has as much to compare with as it ever will. Each figure stands
// beside a get_part on the same server (the yardstick); the target is 50 ms of CPU each.
import type { TestApi } from "../../src/embedded/testing";
import { checkTarget, cpuMs, externalApiEnv, ms, oursSpec, type Report, times } from "./lib";
import { RpcSession } from "./rpc";

const SECTION = "12 cpu per request";
const TARGET_MS = 50;
/** Part ids shown before the hostile requests (search results, as a model pages through them). */
const SHOWN_IDS = 5_000;
/** A request is repeated until this much CPU has been spent, or MAX_REPEATS times (the clock ticks every 10 ms). */
const CPU_PER_FIGURE_MS = 300;
const MAX_REPEATS = 20;

/** Many short words and one long one: what a hostile client sends to make a comparison cost. */
const manyWords = (chars: number) =>
  Array.from({ length: chars / 4 }, (_, i) => `w${(i % 46_656).toString(36)}`)
    .join(" ")
    .slice(0, chars);
const unknownCodes = (prefix: string) => Array.from({ length: 100 }, (_, i) => `${prefix}${i}`);
const longWord = (chars: number) => "bracket".repeat(Math.ceil(chars / 7)).slice(0, chars);

interface Probe {
  kind: "completion" | "did-you-mean" | "search";
  name: string;
  run: (server: RpcSession) => Promise<unknown>;
}

const completion = (value: string) => async (server: RpcSession) =>
  server.request(
    "completion/complete",
    {
      ref: { type: "ref/resource", uri: "parts://parts/{id}" },
      argument: { name: "id", value },
    },
    120_000,
  );

const tool = (name: string, args: Record<string, unknown>) => (server: RpcSession) => server.call(name, args);

const PROBES: readonly Probe[] = [
  { kind: "completion", name: "completion of a part id, 6 characters", run: completion("brk-c0") },
  {
    kind: "completion",
    name: "completion of a part id, 100 KB of many words",
    run: completion(manyWords(100_000)),
  },
  {
    kind: "completion",
    name: "completion of a part id, 900 KB of many words",
    run: completion(manyWords(900_000)),
  },
  {
    kind: "completion",
    name: "completion of a part id, one 100 KB word",
    run: completion(longWord(100_000)),
  },
  {
    kind: "did-you-mean",
    name: "get_part, unknown id (200 characters)",
    run: tool("get_part", { id: `prt_${longWord(196)}` }),
  },
  {
    kind: "did-you-mean",
    name: "get_part, unknown id (8 characters)",
    run: tool("get_part", { id: "prt_zzzz" }),
  },
  {
    kind: "did-you-mean",
    name: "get_material, unknown code (200 characters)",
    run: tool("get_material", { code: longWord(200) }),
  },
  {
    kind: "did-you-mean",
    name: "get_standard, unknown code",
    run: tool("get_standard", { code: "ASTM F9999 titanium" }),
  },
  {
    kind: "did-you-mean",
    name: "preview_part, 100 unknown codes of each of 3 kinds",
    run: tool("preview_part", {
      title: "Draft",
      standardIds: unknownCodes("ASTM X"),
      criticalityIds: unknownCodes("crit-x"),
      categoryIds: unknownCodes("cat-x"),
    }),
  },
  {
    kind: "search",
    name: "search_parts, 200 characters of many words",
    run: tool("search_parts", { text: manyWords(200) }),
  },
  {
    kind: "search",
    name: "search_parts, one 200-character word",
    run: tool("search_parts", { text: longWord(200) }),
  },
  {
    kind: "search",
    name: "search_parts, 50 one-letter words",
    run: tool("search_parts", {
      text: "a b c d e f g h i j k l m n o p q r s t u v w x y ".repeat(2).trim(),
    }),
  },
  {
    kind: "search",
    name: "search_reference, 200 characters of many words",
    run: tool("search_reference", { kind: "material", text: manyWords(200) }),
  },
];

/** The server's CPU per request, over enough repeats for the 10 ms clock to say something. */
async function cpuPerRequest(server: RpcSession, run: (server: RpcSession) => Promise<unknown>) {
  let repeats = 0;
  const before = cpuMs(server.pid);
  const started = performance.now();
  do {
    await run(server);
    repeats += 1;
  } while (
    repeats < MAX_REPEATS &&
    cpuMs(server.pid) - before < CPU_PER_FIGURE_MS &&
    performance.now() - started < 10_000
  );
  return {
    cpu: (cpuMs(server.pid) - before) / repeats,
    wall: (performance.now() - started) / repeats,
    repeats,
  };
}

export async function benchCpu(report: Report, api: TestApi, sampleId: string) {
  const server = await RpcSession.start(oursSpec(externalApiEnv(api)), "2025-11-25");
  try {
    // The whole catalogue read into the index, then 5,000 part ids shown, as a long session would.
    let cursor: string | undefined;
    for (let calls = 0; calls < 50; calls++) {
      const result = await server.call("search_parts", { text: "no such word", ...(cursor && { cursor }) });
      const found = result.structuredContent as { complete: boolean; nextCursor?: string };
      if (found.complete || !found.nextCursor) break;
      cursor = found.nextCursor;
    }
    cursor = undefined;
    for (let shown = 0; shown < SHOWN_IDS; shown += 50) {
      const result = await server.call("search_parts", { limit: 50, ...(cursor && { cursor }) });
      cursor = (result.structuredContent as { nextCursor?: string }).nextCursor;
      if (!cursor) break;
    }
    const yardstick = await cpuPerRequest(server, tool("get_part", { id: sampleId }));
    const costliest = new Map<Probe["kind"], { cpu: number; name: string }>();
    for (const probe of PROBES) {
      const first = await probe.run(server);
      const failed = typeof first === "object" && first !== null && "error" in first && first.error;
      const measured = await cpuPerRequest(server, probe.run);
      const worst = costliest.get(probe.kind);
      if (worst === undefined || measured.cpu > worst.cpu)
        costliest.set(probe.kind, { cpu: measured.cpu, name: probe.name });
      report.rows.push({
        section: SECTION,
        name: probe.name,
        value: `CPU ${ms(measured.cpu)} (${times(measured.cpu, Math.max(yardstick.cpu, 0.1))} a get_part); wall ${ms(measured.wall)}${failed ? "; answered with a JSON-RPC error" : ""}`,
        how: `server CPU (utime + stime from /proc) over ${measured.repeats} repeat(s), divided; after the whole catalogue was indexed and ${SHOWN_IDS} part ids shown`,
      });
    }
    report.rows.push({
      section: SECTION,
      name: "get_part of a known id (the yardstick)",
      value: `CPU ${ms(yardstick.cpu)}, wall ${ms(yardstick.wall)}`,
      how: `the same server, ${yardstick.repeats} repeats`,
    });
    report.data.cpu = { yardstick, costliest: Object.fromEntries(costliest) };
    for (const [kind, { cpu, name }] of costliest) {
      checkTarget(report, `cpu: costliest ${kind} request (${name})`, cpu, TARGET_MS, "ms");
    }
  } finally {
    await server.close();
  }
}
