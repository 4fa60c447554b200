// `npm run bench`: the benchmark suite, against the embedded API (large catalogue: 100,000
// generated parts plus the sample data) started in this process, with the server spawned as
// mcp.json says. Prints one table of figures, each with how it was measured, then the targets
// with PASS/MISS and the margin; writes the same as JSON to .bench/.
//
//   tsx test/bench/run.ts [section...]   sections: tokens cold overhead describe list memory http
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { startEmbeddedApi } from "../../src/embedded";
import { benchColdStart } from "./coldstart";
import { benchHttp } from "./http";
import {
  benchScript,
  benchServerEnv,
  checkTarget,
  formatReport,
  killChildren,
  newReport,
  rawExchange,
  repoRoot,
  round,
  visibleSampleIds,
} from "./lib";
import { benchMemory } from "./memory";
import { benchOverhead } from "./overhead";
import { benchDescribe, benchListParts } from "./reads";
import { reportTokens } from "./tokens";

const SECTIONS = ["tokens", "cold", "overhead", "describe", "list", "memory", "http"] as const;
type Section = (typeof SECTIONS)[number];
/** The whole run stops by itself past this, whatever hangs. */
const RUN_LIMIT_MS = 9 * 60_000;

const asked = process.argv.slice(2);
const unknown = asked.filter((s) => !SECTIONS.includes(s as Section));
if (unknown.length > 0) {
  console.error(`unknown section(s) ${unknown.join(", ")}; sections: ${SECTIONS.join(" ")}`);
  process.exit(2);
}
const sections = new Set<Section>(asked.length > 0 ? (asked as Section[]) : SECTIONS);

const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${RUN_LIMIT_MS / 60_000} min; stopping`);
  killChildren();
  process.exit(1);
}, RUN_LIMIT_MS);
watchdog.unref();

const startedAt = Date.now();
const report = newReport();
const entry = join(repoRoot, benchScript ?? "dist/parts-mcp.js");
const bundleBytes = statSync(entry).size;
const load = () => loadavg().map((v) => round(v, 2));
const environment: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  loadavgAtStart: load(),
  bundleBytes,
  ...(benchScript && { benchScript }),
  ...(Object.keys(benchServerEnv).length > 0 && { benchServerEnv }),
};
report.data.environment = environment;
if (benchScript) console.log(`PARTS_BENCH_SCRIPT: measuring ${benchScript}, not mcp.json's script`);
if (environment.benchServerEnv)
  console.log(`PARTS_BENCH_SERVER_ENV: servers also get ${JSON.stringify(benchServerEnv)}`);
console.log(
  `parts-mcp bench: node ${process.version}, ${cpus().length} CPUs, load average ${load().join(" ")}, bundle ${Math.round(bundleBytes / 1024)} KB`,
);

const api = await startEmbeddedApi({ catalogue: "large" });
try {
  const ids = visibleSampleIds(api);
  const sampleId = ids[0] as string;
  const step = async (name: Section, fn: () => Promise<unknown>) => {
    if (!sections.has(name)) return;
    const t0 = Date.now();
    process.stdout.write(`  ${name}...`);
    await fn();
    process.stdout.write(` ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  };

  await step("tokens", async () => {
    const [list] = await rawExchange({ PARTS_MCP_LOG_LEVEL: "warn" }, [{ method: "tools/list" }]);
    const a = reportTokens(report, list as string);
    checkTarget(report, `tools/list tokens (all ${a.total.tools} tools)`, a.total.tokens, 5_000, "tokens");
  });

  await step("cold", async () => {
    const { own, external } = await benchColdStart(report, api, sampleId, sampleId);
    checkTarget(report, "cold start → initialize (own embedded API)", own.initialize.median, 120, "ms");
    checkTarget(report, "cold start → initialize (external API)", external.initialize.median, 120, "ms");
  });

  await step("overhead", async () => {
    const { raw, mcp, sizes } = await benchOverhead(report, api, ids);
    checkTarget(report, "median call overhead over raw HTTP", mcp.median - raw.median, 0.35, "ms");
    checkTarget(report, "part text ≤ API body (compact JSON)", sizes.textBytes, sizes.apiBodyBytes, "B");
  });

  await step("describe", () => benchDescribe(report, api));
  await step("list", () => benchListParts(report, api));

  await step("memory", async () => {
    const m = await benchMemory(report, api, sampleId);
    checkTarget(report, "RSS idle (own embedded API, as mcp.json)", m.ownIdle, 70, "MiB");
    checkTarget(report, "RSS idle (external API)", m.externalIdle, 70, "MiB");
    checkTarget(report, "RSS growth over 20,000 calls (idle again)", m.growth, 5, "MiB");
  });

  await step("http", async () => {
    const results = await benchHttp(report, api, ids);
    const at64 = results.find((r) => r.concurrency === 64);
    if (at64) {
      checkTarget(report, "HTTP calls/s at 64 concurrent", at64.callsPerSecond, 3_000, "calls/s", true);
      checkTarget(report, "HTTP p99 at 64 concurrent", at64.latency.p99, 50, "ms");
    }
  });
} finally {
  await api.close();
}

environment.loadavgAtEnd = load();
environment.seconds = round((Date.now() - startedAt) / 1000, 1);
const text = formatReport(report);
console.log(`\n${text}`);
const dir = join(repoRoot, ".bench");
mkdirSync(dir, { recursive: true });
const json = JSON.stringify({ ...report, text }, null, 2);
const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, "-");
writeFileSync(join(dir, `bench-${stamp}.json`), json);
writeFileSync(join(dir, "latest.json"), json);
const met = report.targets.filter((t) => t.verdict === "PASS").length;
console.log(
  `${met}/${report.targets.length} targets met; ${environment.seconds} s; load average at end ${load().join(" ")}; written to .bench/latest.json`,
);
clearTimeout(watchdog);
