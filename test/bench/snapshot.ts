// `tsx test/bench/run.ts snapshot`, a study apart from the targets: would a V8 start-up snapshot
// (Node's `--build-snapshot`, started with `--snapshot-blob`) make the cold-start target, and what
// does it cost? The bundle of test/bench/snapshot-entry.ts (scripts/build.mjs's options) is
// evaluated by Node's snapshot builder under mcp.json's Node flags; the blob is then started
// beside parts-mcp as mcp.json starts it and the minimal server: first answer and first get_part
// in both eras, and idle RSS (after the idle-time collection). README › Performance has the
// findings and why no snapshot ships.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
// @ts-expect-error the build script is plain JavaScript
import { BUNDLE_OPTIONS } from "../../scripts/build.mjs";
import type { EmbeddedApi } from "../../src/embedded";
import { coldStartOnce, type StartSample } from "./coldstart";
import {
  externalApiEnv,
  mib,
  minimalSpec,
  ms,
  oursSpec,
  type Report,
  repoRoot,
  rssMiB,
  sleep,
  summarize,
  times,
} from "./lib";
import { IDLE_AFTER_MS, oneCallIn } from "./memory";
import { ERAS, type ServerSpec } from "./rpc";

const DIR = join(repoRoot, ".bench/snapshot");
const SPAWNS = 12;
const IDLE_ROUNDS = 3;

/** Builds the blob under mcp.json's Node flags and returns how to start from it. */
async function buildBlob(api: EmbeddedApi): Promise<ServerSpec> {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const entry = join(DIR, "entry.js");
  await build({ ...BUNDLE_OPTIONS, entryPoints: ["test/bench/snapshot-entry.ts"], outfile: entry });
  const ours = oursSpec(externalApiEnv(api));
  const nodeFlags = ours.args.filter((arg) => arg.startsWith("--"));
  const blob = join(DIR, "parts-mcp.blob");
  // Only PATH from this environment: nothing of the bench's own settings goes into the heap.
  const built = spawnSync(ours.command, [...nodeFlags, "--snapshot-blob", blob, "--build-snapshot", entry], {
    cwd: DIR,
    env: { PATH: process.env.PATH },
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`snapshot: the builder failed: ${built.stderr.slice(-500)}`);
  // parts-mcp as the bench starts it, with the blob in place of the launcher.
  return { ...ours, label: "parts-mcp from a snapshot", args: [...nodeFlags, "--snapshot-blob", blob] };
}

async function idleRss(spec: ServerSpec, partId: string): Promise<number> {
  const session = await oneCallIn(spec, "2025-11-25", partId);
  try {
    await sleep(IDLE_AFTER_MS);
    return rssMiB(session.pid);
  } finally {
    await session.close();
  }
}

export async function benchSnapshot(report: Report, api: EmbeddedApi, partId: string) {
  const specs = {
    snapshot: await buildBlob(api),
    ours: oursSpec(externalApiEnv(api)),
    minimal: minimalSpec(api),
  };
  const section = "S snapshot study";
  for (const era of ERAS) {
    const samples = new Map<string, StartSample[]>();
    for (const spec of Object.values(specs)) await coldStartOnce(spec, era, partId); // not counted
    for (let i = 0; i < SPAWNS; i++) {
      for (const [who, spec] of Object.entries(specs)) {
        samples.set(who, [...(samples.get(who) ?? []), await coldStartOnce(spec, era, partId)]);
      }
    }
    const median = (who: string, key: keyof StartSample) =>
      summarize((samples.get(who) ?? []).map((s) => s[key])).median;
    for (const key of ["firstAnswerMs", "firstToolMs"] as const) {
      const [snapshot, ours, minimal] = [
        median("snapshot", key),
        median("ours", key),
        median("minimal", key),
      ];
      report.rows.push({
        section,
        name: `spawn → ${key === "firstAnswerMs" ? "first answer" : "first get_part result"} (${era})`,
        value: `snapshot ${ms(snapshot)}: ${times(snapshot, minimal)} the minimal server's (parts-mcp ${ms(ours)}: ${times(ours, minimal)})`,
        how: `median of ${SPAWNS} spawns each, taking turns; the blob started with mcp.json's Node flags and --snapshot-blob`,
      });
    }
  }
  const rss = new Map<string, number[]>();
  for (let i = 0; i < IDLE_ROUNDS; i++) {
    for (const [who, spec] of Object.entries(specs)) {
      rss.set(who, [...(rss.get(who) ?? []), await idleRss(spec, partId)]);
    }
  }
  const idle = (who: string) => summarize(rss.get(who) ?? []).median;
  report.rows.push({
    section,
    name: "idle RSS (2025-11-25)",
    value: `snapshot ${mib(idle("snapshot"))}: ${times(idle("snapshot"), idle("minimal"))} the minimal server's (parts-mcp ${mib(idle("ours"))}: ${times(idle("ours"), idle("minimal"))})`,
    how: `median of ${IDLE_ROUNDS} starts each, ${IDLE_AFTER_MS / 1000} s after one get_part`,
  });
}
