// Where the time goes: CPU profiles (node --cpu-prof) of the server, built with a source map so
// that samples are charged to the modules they came from, summarised by module and function.
//
//   tsx test/bench/profile.ts startup|calls|http|bundle
//
// startup: 5 spawns to the initialize result (external API); calls: 5,000 get_part over stdio
// (2026 era);
// http: 64 concurrent callers for 4 s over Streamable HTTP; bundle: what the bundle is made of
// (esbuild metafile). The .cpuprofile files stay in .bench/profile/<mode>/ for Chrome DevTools.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error the build script is plain JavaScript
import { bundle } from "../../scripts/build.mjs";
import { startTestApi } from "../../src/embedded/testing";
import { coldStartOnce } from "./coldstart";
import { formatProfile, moduleOf, type ProfileSummary, summarizeProfile } from "./cpuprofile";
import { load, oursHttpSpec, spawnHttp } from "./http";
import { externalApiEnv, oursSpec, repoRoot, visibleSampleIds } from "./lib";
import { RpcSession } from "./rpc";

const OUTDIR = ".bench/profile";
const SCRIPT = `${OUTDIR}/parts-mcp.js`;
const modes = ["startup", "calls", "http", "bundle"] as const;
const mode = process.argv[2] as (typeof modes)[number];
if (!modes.includes(mode)) {
  console.error(`usage: tsx test/bench/profile.ts ${modes.join("|")}`);
  process.exit(2);
}
const watchdog = setTimeout(() => {
  console.error("profile: still running after 3 min; stopping");
  process.exit(1);
}, 180_000);
watchdog.unref();

const metafile = (await bundle({ outdir: OUTDIR, sourcemap: true })) as {
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
};
const dir = join(repoRoot, ".bench/profile", mode);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const profileArgs = ["--cpu-prof", "--cpu-prof-dir", dir];

/** The average of several profiles' summaries. */
function average(summaries: ProfileSummary[]): ProfileSummary {
  const avg = (pick: (s: ProfileSummary) => [string, number][]) => {
    const sums = new Map<string, number>();
    for (const s of summaries)
      for (const [k, v] of pick(s)) sums.set(k, (sums.get(k) ?? 0) + v / summaries.length);
    return [...sums].sort((a, b) => b[1] - a[1]);
  };
  return {
    totalMs: summaries.reduce((a, s) => a + s.totalMs, 0) / summaries.length,
    byModule: avg((s) => s.byModule),
    byFunction: avg((s) => s.byFunction),
  };
}

const profiles = () => readdirSync(dir).map((f) => summarizeProfile(join(dir, f)));
/** Busy time only: idle samples say nothing about cost. */
const busy = (s: ProfileSummary): ProfileSummary => {
  const idle = s.byModule.find(([k]) => k === "(idle)")?.[1] ?? 0;
  return {
    totalMs: s.totalMs - idle,
    byModule: s.byModule.filter(([k]) => k !== "(idle)"),
    byFunction: s.byFunction.filter(([k]) => k !== "(idle)"),
  };
};

let text = "";
if (mode === "bundle") {
  const output = Object.entries(metafile.outputs).find(([name]) => /\.c?js$/.test(name))?.[1];
  const byModule = new Map<string, number>();
  for (const [file, input] of Object.entries(output?.inputs ?? {})) {
    const name = moduleOf(file.replace(/^[a-z-]+:/, ""));
    byModule.set(name, (byModule.get(name) ?? 0) + input.bytesInOutput);
  }
  text = [
    `bundle ${Math.round((output?.bytes ?? 0) / 1024)} KB; by module (minified bytes):`,
    ...[...byModule]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([name, bytes]) => `  ${(bytes / 1024).toFixed(1).padStart(7)} KB  ${name}`),
  ].join("\n");
} else {
  const api = await startTestApi();
  try {
    const ids = visibleSampleIds(api);
    if (mode === "startup") {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const spec = oursSpec(externalApiEnv(api), profileArgs, SCRIPT);
        const sample = await coldStartOnce(spec, "2025-11-25", ids[0] as string, true);
        times.push(sample.firstAnswerMs);
      }
      text = `spawn → initialize, under the profiler: ${times.map((t) => t.toFixed(0)).join(", ")} ms\n`;
      text += formatProfile(busy(average(profiles())), 30);
    } else if (mode === "calls") {
      const calls = 5_000;
      const server = await RpcSession.start(oursSpec(externalApiEnv(api), profileArgs, SCRIPT), "2026-07-28");
      for (let i = 0; i < calls; i++) await server.call("get_part", { id: ids[i % ids.length] });
      await server.close();
      const summary = busy(average(profiles()));
      text = `${calls} get_part calls over stdio: ${((summary.totalMs * 1000) / calls).toFixed(0)} µs of server CPU per call (profiler overhead included)\n`;
      text += formatProfile(summary, 40);
    } else {
      const server = await spawnHttp(oursHttpSpec(api, {}, profileArgs, SCRIPT));
      const result = await load(server.url, server.pid, ids, 64, "2026-07-28", 4_000, 500);
      await server.close();
      const summary = busy(average(profiles()));
      text = `64 concurrent over HTTP: ${Math.round(result.callsPerSecond)} calls/s under the profiler; ${((summary.totalMs * 1000) / (result.correct * 1.125)).toFixed(0)} µs of server CPU per call\n`;
      text += formatProfile(summary, 40);
    }
  } finally {
    await api.close();
  }
}
console.log(text);
writeFileSync(join(dir, "summary.txt"), `${text}\n`);
clearTimeout(watchdog);
