// 2. Cold start, beside the minimal SDK server: from spawning the process to its first answer (the
// `initialize` result in the 2025 era, the `server/discover` result in the 2026 era), and to the
// first get_part result. The client is a bare pipe (test/bench/rpc.ts), so only the servers' time
// counts: the opening request is written at once and waits in the pipe until the server reads it,
// as with a real client. Spawns alternate between the servers, era by era, so that all see the
// same machine. Beside the two, the start-up floor (floor.ts): the minimal server built and started
// as parts-mcp is, which shows what of a start is the SDK's and what is parts-mcp's; the target is
// parts-mcp's first answer within 1.5 times the floor's.
import type { EmbeddedApi } from "../../src/embedded";
import { buildFloor } from "./floor";
import {
  checkRatio,
  externalApiEnv,
  MINIMAL_SERVER,
  minimalSpec,
  ms,
  oursSpec,
  type Report,
  round,
  type Summary,
  summarize,
  times,
} from "./lib";
import { ERAS, type Era, RpcSession, type ServerSpec } from "./rpc";

const SPAWNS = 20;

export interface StartSample {
  firstAnswerMs: number;
  firstToolMs: number;
}

/**
 * One spawn: times to the first answer and to the first get_part result. The process is killed
 * after, unless `graceful` (a profiler writes its profile on a normal exit only).
 */
export async function coldStartOnce(
  spec: ServerSpec,
  era: Era,
  partId: string,
  graceful = false,
): Promise<StartSample> {
  const session = await RpcSession.start(spec, era);
  try {
    const result = await session.call("get_part", { id: partId });
    const firstToolMs = performance.now() - session.spawnedAt;
    if (result.isError) throw new Error(`${spec.label}: first get_part failed: ${JSON.stringify(result)}`);
    return { firstAnswerMs: session.firstAnswerMs, firstToolMs };
  } finally {
    await (graceful ? session.close() : session.kill());
  }
}

const summary = (samples: StartSample[]) => ({
  firstAnswer: summarize(samples.map((s) => s.firstAnswerMs)),
  firstTool: summarize(samples.map((s) => s.firstToolMs)),
});

interface ColdStartResult {
  era: Era;
  ours: { firstAnswer: Summary; firstTool: Summary };
  minimal: { firstAnswer: Summary; firstTool: Summary };
  floor: { firstAnswer: Summary; firstTool: Summary };
}

export async function benchColdStart(report: Report, api: EmbeddedApi, partId: string, ownPartId: string) {
  const ours = oursSpec(externalApiEnv(api));
  const minimal = minimalSpec(api);
  // mcp.json as shipped: no API configured, so the embedded sample API starts in the process.
  const ownApi = oursSpec();
  const floor = await buildFloor(api, partId);
  const specs = { ours, minimal, floor };
  const samples = new Map<string, StartSample[]>();
  const add = (key: string, sample: StartSample) => samples.set(key, [...(samples.get(key) ?? []), sample]);
  for (const era of ERAS) {
    await coldStartOnce(ours, era, partId); // warms the file cache: not counted
    await coldStartOnce(minimal, era, partId);
    await coldStartOnce(floor, era, partId);
  }
  for (let i = 0; i < SPAWNS; i++) {
    for (const era of ERAS) {
      // Which server goes first rotates too.
      const order = (["ours", "minimal", "floor"] as const).map((_, k, all) => all[(i + k) % all.length]);
      for (const who of order) if (who) add(`${who} ${era}`, await coldStartOnce(specs[who], era, partId));
    }
    add("own", await coldStartOnce(ownApi, "2025-11-25", ownPartId));
  }

  const results: ColdStartResult[] = ERAS.map((era) => ({
    era,
    ours: summary(samples.get(`ours ${era}`) ?? []),
    minimal: summary(samples.get(`minimal ${era}`) ?? []),
    floor: summary(samples.get(`floor ${era}`) ?? []),
  }));
  const how = `median of ${SPAWNS} spawns each (p95 beside), \`node dist/parts-mcp.js\` as mcp.json starts it and \`node ${MINIMAL_SERVER}\`, both against the bench's API, taking turns spawn by spawn with the floor (below) after one unmeasured spawn each; bare-pipe client`;
  for (const r of results) {
    report.rows.push(
      {
        section: "2 cold start",
        name: `spawn → first answer (${r.era})`,
        value: `${ms(r.ours.firstAnswer.median)} vs minimal ${ms(r.minimal.firstAnswer.median)}: ${times(r.ours.firstAnswer.median, r.minimal.firstAnswer.median)} (p95 ${ms(r.ours.firstAnswer.p95)} vs ${ms(r.minimal.firstAnswer.p95)})`,
        how: `${how}; first answer: the ${r.era === "2025-11-25" ? "initialize" : "server/discover"} result`,
      },
      {
        section: "2 cold start",
        name: `spawn → first get_part result (${r.era})`,
        value: `${ms(r.ours.firstTool.median)} vs minimal ${ms(r.minimal.firstTool.median)}: ${times(r.ours.firstTool.median, r.minimal.firstTool.median)} (p95 ${ms(r.ours.firstTool.p95)} vs ${ms(r.minimal.firstTool.p95)})`,
        how,
      },
      {
        section: "2 cold start",
        name: `start-up floor: the minimal server bundled with a code cache (${r.era})`,
        value: `first answer ${ms(r.floor.firstAnswer.median)}: ${times(r.floor.firstAnswer.median, r.minimal.firstAnswer.median)} the minimal server's; parts-mcp ${times(r.ours.firstAnswer.median, r.floor.firstAnswer.median)} the floor's (first get_part ${ms(r.floor.firstTool.median)}: parts-mcp ${times(r.ours.firstTool.median, r.floor.firstTool.median)})`,
        how: "test/bench/minimal-server.mjs's stdio server bundled by scripts/build.mjs's options and started by parts-mcp's launcher with a code cache from two warm-up starts (test/bench/floor.ts); spawned in turn with the other two",
      },
    );
  }
  const own = summary(samples.get("own") ?? []);
  const minimal2025 = results.find((r) => r.era === "2025-11-25")?.minimal as ColdStartResult["minimal"];
  report.rows.push({
    section: "2 cold start",
    name: "spawn → first answer, own embedded API (mcp.json as shipped)",
    value: `${ms(own.firstAnswer.median)} (first get_part ${ms(own.firstTool.median)}); ${times(own.firstAnswer.median, minimal2025.firstAnswer.median)} the minimal server's first answer`,
    how: `${SPAWNS} spawns with no API configured: the embedded sample API starts in the server process (2025 era)`,
  });
  // The target is against the floor, what the SDK alone costs a server started the same way: the
  // time parts-mcp adds to it is what parts-mcp can change (docs/performance.md).
  for (const r of results) {
    checkRatio(
      report,
      `cold start to the first answer, against the start-up floor (${r.era})`,
      r.ours.firstAnswer.median,
      r.floor.firstAnswer.median,
      1.5,
      ms,
      false,
      "the floor",
    );
  }
  report.data.coldStart = {
    spawns: SPAWNS,
    eras: results.map((r) => ({
      ...r,
      firstAnswerRatio: round(r.ours.firstAnswer.median / r.minimal.firstAnswer.median, 3),
      firstToolRatio: round(r.ours.firstTool.median / r.minimal.firstTool.median, 3),
      floorFirstAnswerRatio: round(r.floor.firstAnswer.median / r.minimal.firstAnswer.median, 3),
    })),
    ownEmbeddedApi: own,
  };
  return { results, own };
}
