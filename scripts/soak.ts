// Fault soak: read calls through the real server (SDK Client → stdio → dist/parts-mcp.js, started
// as mcp.json says) while the embedded API answers a share of requests with 429 (Retry-After 0 or
// 1) or 503; then creates under faults, counted at the API by title to find duplicates.
//
//   npx tsx scripts/soak.ts [--calls 10000] [--concurrency 16] [--creates 300] [--fault-rate 0.2]
//                           [--retries 8] [--seed 64023]
//
// Needs `npm run build` first. test/reliability/soak.test.ts runs a smaller soak with the same code.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { type FaultRule, startTestApi, type TestApi } from "../src/embedded/testing";
import { repoRoot, startServer, textOf } from "../test/support/mcp-server";

export interface SoakOptions {
  calls: number;
  concurrency: number;
  /** Creates made under faults after the reads (0: none). */
  creates: number;
  /** Share of requests answered with a fault, 0..1: 40% 429 "0", 10% 429 "1", 50% 503. */
  faultRate: number;
  /** PARTS_API_MAX_RETRIES of the server; undefined: mcp.json's value. */
  retries?: number;
  /** Seed of the API's fault PRNG. */
  seed?: number;
  /** Progress lines (the script prints them; tests stay quiet). */
  progress?: (line: string) => void;
}

export interface SoakReport {
  calls: number;
  successes: number;
  failures: number;
  /** The first few failure texts. */
  failureSamples: string[];
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  /** Calls whose latency was over the server's deadline (PARTS_API_TIMEOUT_MS). */
  overDeadline: number;
  deadlineMs: number;
  /** Requests the API received for the read calls (each read tool makes one logical request). */
  upstreamRequests: number;
  /** Retries the server logged ("retrying upstream request"). */
  retries: number;
  /** Upstream requests minus calls: every request beyond the first of a call is a retry. */
  retriesByCount: number;
  creates: {
    calls: number;
    successes: number;
    /** Titles the API holds more than once. */
    duplicates: number;
    /** Successful creates whose part is not at the API exactly once. */
    successesNotStoredOnce: number;
    /** Failed creates whose part the API nevertheless holds (a fault after the part was made). */
    failedButStored: number;
    /** Of those, the ones whose message did not warn that the part may exist. */
    failedButStoredUnwarned: number;
    upstreamRequests: number;
  };
  wallMs: number;
  serverAlive: boolean;
}

/** A read call of the mix: a tool and its arguments, all valid and existing. */
type ReadCall = { name: string; arguments: Record<string, unknown> };

/** The reads: every read tool that makes exactly one upstream request per call (cache off). */
function readMix(api: TestApi): ReadCall[] {
  const { store } = api;
  const org = api.accounts[0]?.orgId ?? "";
  const parts = store
    .sampleParts()
    .filter((p) => store.isVisible(p, org))
    .slice(0, 20);
  const standards = store.standards();
  const criticalities = store.criticalities();
  const categories = store.categories();
  const mix: ReadCall[] = [];
  parts.forEach((part, i) => {
    mix.push({ name: "get_part", arguments: { id: part.id } });
    mix.push({ name: "list_parts", arguments: { page: (i % 3) + 1, pageSize: 10 } });
  });
  standards.slice(0, 10).forEach((s, i) => {
    mix.push({ name: "get_standard", arguments: { code: s.code } });
    mix.push({
      name: "batch_get_standards",
      arguments: { codes: standards.slice(i, i + 4).map((x) => x.code) },
    });
  });
  for (const p of store.processes().slice(0, 5))
    mix.push({ name: "get_process", arguments: { code: p.code } });
  for (const m of store.materials().slice(0, 5))
    mix.push({ name: "get_material", arguments: { code: m.code } });
  for (const c of criticalities.slice(0, 5)) mix.push({ name: "get_criticality", arguments: { id: c.id } });
  mix.push({
    name: "batch_get_criticalities",
    arguments: { ids: criticalities.slice(0, 3).map((c) => c.id) },
  });
  mix.push({ name: "batch_get_categories", arguments: { ids: categories.slice(0, 5).map((c) => c.id) } });
  for (const r of store.rfqs().slice(0, 5)) mix.push({ name: "get_rfq", arguments: { id: r.id } });
  for (const f of store.factories().slice(0, 3)) mix.push({ name: "get_factory", arguments: { id: f.id } });
  mix.push({ name: "list_standards", arguments: {} });
  mix.push({ name: "list_standards", arguments: { governingBody: "ASTM" } });
  return mix;
}

/** 429 with Retry-After 0 (40% of faults), 429 with Retry-After 1 (10%), 503 (50%); `rate` in all. */
export function soakFaults(rate: number, endpoint: FaultRule["endpoint"] = "*"): FaultRule[] {
  // The first matching rule that wins its roll decides, so each probability is conditional on the
  // rules before it not having fired.
  const shares: [number, FaultRule["action"]][] = [
    [0.4, { kind: "status", status: 429, retryAfter: "0" }],
    [0.1, { kind: "status", status: 429, retryAfter: "1" }],
    [0.5, { kind: "status", status: 503 }],
  ];
  let left = 1;
  return shares.map(([share, action]) => {
    const probability = Math.min(1, (rate * share) / left);
    left -= rate * share;
    return { endpoint, action, probability };
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number);

/** Runs `count` tasks with at most `concurrency` at once. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const say = options.progress ?? (() => {});
  const deadlineMs = 30_000;
  const api = await startTestApi({ faultSeed: options.seed ?? 0xfa17 });
  const server = await startServer({
    sharedApi: api,
    env: {
      // Every read goes upstream: the cache would hide the faults.
      PARTS_MCP_CACHE_TTL_MS: "0",
      PARTS_MCP_LOG_LEVEL: "warn",
      PARTS_API_TIMEOUT_MS: String(deadlineMs),
      ...(options.retries !== undefined && { PARTS_API_MAX_RETRIES: String(options.retries) }),
      NODE_OPTIONS: "--unhandled-rejections=strict",
    },
  });
  const started = performance.now();
  try {
    const mix = readMix(api);
    for (const rule of soakFaults(options.faultRate)) api.faults.add(rule);
    const latencies: number[] = [];
    const failureSamples: string[] = [];
    let successes = 0;
    let failures = 0;
    const requestsBefore = api.stats.requests();
    await pool(options.calls, options.concurrency, async (i) => {
      const call = mix[i % mix.length] as ReadCall;
      const t0 = performance.now();
      let result: CallToolResult | undefined;
      let thrown: unknown;
      try {
        result = (await server.client.callTool(call, {
          timeout: deadlineMs + 10_000,
        })) as CallToolResult;
      } catch (error) {
        thrown = error;
      }
      latencies.push(performance.now() - t0);
      if (result && !result.isError) successes++;
      else {
        failures++;
        if (failureSamples.length < 5) {
          failureSamples.push(`${call.name}: ${result ? textOf(result) : String(thrown)}`);
        }
      }
      if ((i + 1) % 1000 === 0) say(`  ${i + 1} calls, ${failures} failed`);
    });
    const readRequests = api.stats.requests() - requestsBefore;
    const readRetries = countRetries(server.stderr());

    // Creates under faults: the read faults, plus faults that strike after the part was made.
    api.faults.clear();
    api.faults.add({ endpoint: "createPart", action: { kind: "drop" }, probability: 0.05 });
    api.faults.add({
      endpoint: "createPart",
      action: { kind: "malformed", variant: "reset-mid-body" },
      probability: 0.05,
    });
    for (const rule of soakFaults(options.faultRate, "createPart")) api.faults.add(rule);
    const runId = Date.now().toString(36);
    const outcomes: { title: string; ok: boolean; text: string }[] = [];
    const createsBefore = api.stats.requests("createPart");
    await pool(options.creates, options.concurrency, async (i) => {
      const title = `soak ${runId} part ${i}`;
      const result = (await server.client.callTool(
        { name: "create_part", arguments: { title } },
        {
          timeout: deadlineMs + 10_000,
        },
      )) as CallToolResult;
      outcomes.push({ title, ok: !result.isError, text: textOf(result) });
    });
    api.faults.clear();
    let duplicates = 0;
    let successesNotStoredOnce = 0;
    let failedButStored = 0;
    let failedButStoredUnwarned = 0;
    for (const { title, ok, text } of outcomes) {
      const stored = api.store.countPartsWithTitle(title);
      if (stored > 1) duplicates++;
      if (ok && stored !== 1) successesNotStoredOnce++;
      if (!ok && stored > 0) {
        failedButStored++;
        if (!/may or may not have taken effect/.test(text)) failedButStoredUnwarned++;
      }
    }

    const serverAlive = await server.client.ping().then(
      () => true,
      () => false,
    );
    const sorted = [...latencies].sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      calls: options.calls,
      successes,
      failures,
      failureSamples,
      latencyMs: {
        p50: round(percentile(sorted, 0.5)),
        p95: round(percentile(sorted, 0.95)),
        p99: round(percentile(sorted, 0.99)),
        max: round(sorted.at(-1) ?? 0),
      },
      overDeadline: latencies.filter((ms) => ms > deadlineMs).length,
      deadlineMs,
      upstreamRequests: readRequests,
      retries: readRetries,
      retriesByCount: readRequests - options.calls,
      creates: {
        calls: outcomes.length,
        successes: outcomes.filter((o) => o.ok).length,
        duplicates,
        successesNotStoredOnce,
        failedButStored,
        failedButStoredUnwarned,
        upstreamRequests: api.stats.requests("createPart") - createsBefore,
      },
      wallMs: Math.round(performance.now() - started),
      serverAlive,
    };
  } finally {
    await server.close();
    await api.close();
  }
}

const countRetries = (stderr: string) => stderr.split("retrying upstream request").length - 1;

function format(report: SoakReport, options: SoakOptions): string {
  const c = report.creates;
  return [
    `fault soak: ${options.calls} read calls, concurrency ${options.concurrency}, ${Math.round(options.faultRate * 100)}% of requests answered 429 (Retry-After 0 or 1) or 503, PARTS_API_MAX_RETRIES=${options.retries ?? "(mcp.json)"}`,
    `calls            ${report.calls}`,
    `successes        ${report.successes}`,
    `failures         ${report.failures}`,
    `latency p50      ${report.latencyMs.p50} ms`,
    `latency p95      ${report.latencyMs.p95} ms`,
    `latency p99      ${report.latencyMs.p99} ms`,
    `latency max      ${report.latencyMs.max} ms (deadline ${report.deadlineMs} ms; ${report.overDeadline} over it)`,
    `upstream requests ${report.upstreamRequests}`,
    `retries          ${report.retries} (logged; requests - calls = ${report.retriesByCount})`,
    `creates          ${c.calls} under faults (also 5% dropped, 5% reset mid-body): ${c.successes} succeeded, ${c.upstreamRequests} upstream requests`,
    `duplicates       ${c.duplicates} (successful creates not stored exactly once: ${c.successesNotStoredOnce}; failed creates stored anyway: ${c.failedButStored}, ${c.failedButStored - c.failedButStoredUnwarned} of them reported as "may or may not have taken effect")`,
    `wall time        ${(report.wallMs / 1000).toFixed(1)} s`,
    `server alive     ${report.serverAlive}`,
    ...report.failureSamples.map((s) => `failure sample   ${s}`),
  ].join("\n");
}

async function main() {
  const { values } = parseArgs({
    options: {
      calls: { type: "string", default: "10000" },
      concurrency: { type: "string", default: "16" },
      creates: { type: "string", default: "300" },
      "fault-rate": { type: "string", default: "0.2" },
      retries: { type: "string", default: "8" },
      seed: { type: "string" },
    },
  });
  if (!existsSync(join(repoRoot, "dist/parts-mcp.js"))) {
    console.error("dist/parts-mcp.js is missing: run `npm run build` first.");
    process.exit(2);
  }
  const options: SoakOptions = {
    calls: Number(values.calls),
    concurrency: Number(values.concurrency),
    creates: Number(values.creates),
    faultRate: Number(values["fault-rate"]),
    retries: Number(values.retries),
    ...(values.seed !== undefined && { seed: Number(values.seed) }),
    progress: (line) => console.error(line),
  };
  const report = await runSoak(options);
  console.log(format(report, options));
  const ok =
    report.failures === 0 &&
    report.overDeadline === 0 &&
    report.creates.duplicates === 0 &&
    report.serverAlive;
  process.exit(ok ? 0 : 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
