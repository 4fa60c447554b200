// `npm run bench`: the benchmark suite, against the embedded API (large catalogue: 100,000
// generated parts plus the sample data) started in this process, with parts-mcp spawned as
// mcp.json says and, beside it in the same run, a minimal official-SDK server doing the same
// get_part (test/bench/minimal-server.mjs). The machine may be busy: the two are measured
// interleaved, and the targets are ratios to the minimal server, not absolute times. Prints one
// table of figures, each in its unit and as a ratio, with how it was measured, then the targets
// with PASS/MISS and the margin; writes the same as JSON to .bench/.
//
//   tsx test/bench/run.ts [section...]
//   sections: tokens cold overhead describe list memory http bundle search flood views cpu telemetry oauth
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { startTestApi } from "../../src/embedded/testing";
import { benchBundle } from "./bundle";
import { benchColdStart } from "./coldstart";
import { benchCpu } from "./cpu";
import { benchFlood } from "./flood";
import { benchHttp } from "./http";
import {
  benchScript,
  benchServerEnv,
  checkTarget,
  externalApiEnv,
  formatReport,
  killChildren,
  newReport,
  oursSpec,
  repoRoot,
  round,
  visibleSampleIds,
} from "./lib";
import { benchMemory } from "./memory";
import { benchOAuth } from "./oauth";
import { benchOverhead } from "./overhead";
import { benchDescribe, benchListParts } from "./reads";
import { RpcSession } from "./rpc";
import { benchSearch } from "./search";
import { benchTelemetry } from "./telemetry";
import { reportTokens, tokens } from "./tokens";
import { benchViews } from "./views";

const SECTIONS = [
  "tokens",
  "cold",
  "overhead",
  "describe",
  "list",
  "memory",
  "http",
  "bundle",
  "search",
  "flood",
  "views",
  "cpu",
  "telemetry",
  "oauth",
] as const;
type Section = (typeof SECTIONS)[number];
/** The whole run stops by itself past this, whatever hangs (it takes about 2.5 min on 2 cores). */
const RUN_LIMIT_MS = 6 * 60_000;

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
const load = () => loadavg().map((v) => round(v, 2));
const environment: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  loadavgAtStart: load(),
  ...(benchScript && { benchScript }),
  ...(Object.keys(benchServerEnv).length > 0 && { benchServerEnv }),
};
report.data.environment = environment;
if (benchScript) console.log(`PARTS_BENCH_SCRIPT: measuring ${benchScript}, not mcp.json's script`);
if (environment.benchServerEnv)
  console.log(`PARTS_BENCH_SERVER_ENV: servers also get ${JSON.stringify(benchServerEnv)}`);
console.log(
  `parts-mcp bench: node ${process.version}, ${cpus().length} CPUs, load average ${load().join(" ")}`,
);

const api = await startTestApi({ catalogue: "large" });
try {
  const ids = visibleSampleIds(api);
  const sampleId = ids[0] as string;
  const step = async (name: Section, fn: () => unknown) => {
    if (!sections.has(name)) return;
    const t0 = Date.now();
    process.stdout.write(`  ${name}...`);
    await fn();
    process.stdout.write(` ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  };

  await step("tokens", async () => {
    const server = await RpcSession.start(oursSpec(externalApiEnv(api)), "2025-11-25");
    try {
      const list = await server.request("tools/list");
      reportTokens(report, JSON.stringify(list.result));
      // The budget of test/protocol/tools.test.ts: the tools a client without views sees; the views
      // may add preview_part and their `_meta.ui` links, nothing else.
      const { tools: all } = list.result as { tools: { name: string; _meta?: unknown }[] };
      const withoutViews = all
        .filter((tool) => tool.name !== "preview_part")
        .map(({ _meta, ...tool }) => tool);
      checkTarget(
        report,
        `tools/list tokens (the ${withoutViews.length} tools beside preview_part and view links)`,
        tokens({ tools: withoutViews }),
        6_085,
        "tokens",
      );
    } finally {
      await server.close();
    }
  });

  await step("cold", () => benchColdStart(report, api, sampleId, sampleId));

  await step("overhead", async () => {
    const { sizes } = await benchOverhead(report, api, ids);
    checkTarget(report, "part text ≤ API body (compact JSON)", sizes.textBytes, sizes.apiBodyBytes, "B");
  });

  await step("describe", () => benchDescribe(report, api));
  await step("list", () => benchListParts(report, api));

  await step("memory", async () => {
    const m = await benchMemory(report, api, sampleId, sampleId);
    checkTarget(report, "RSS growth over 20,000 calls (idle again)", m.growth, 5, "MiB");
  });

  await step("http", () => benchHttp(report, api, ids));
  await step("bundle", () => benchBundle(report));
  await step("search", () => benchSearch(report, api));
  await step("flood", () => benchFlood(report, api));
  await step("views", () => benchViews(report, api));
  await step("cpu", () => benchCpu(report, api, sampleId));
  await step("telemetry", () => benchTelemetry(report, api, sampleId));
  await step("oauth", () => benchOAuth(report, api));
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
