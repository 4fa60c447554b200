// Shared pieces of the benchmark suite: sample statistics, the two servers compared (parts-mcp
// as mcp.json starts it, and the minimal official-SDK server beside it), the RSS and CPU time of
// a process, and the rows and targets of the report. Benchmarks are scripts, not tests: every
// figure says how it was measured, and every wait is bounded.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EmbeddedApi } from "../../src/embedded";
import type { TestApi } from "../../src/embedded/testing";

/** How to start one server: the command line and its whole environment (PATH added). */
export interface ServerSpec {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");

// ---------------------------------------------------------------------------------- statistics

export interface Summary {
  n: number;
  median: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of sorted samples. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export const round = (value: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Rejects after `ms` with a message naming what took too long: no benchmark waits for ever. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

// ----------------------------------------------------------------------------------- processes

/** Resident set size of a process in MiB, from /proc/<pid>/status (VmRSS). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** What an RSS sampler saw: the peak and last VmRSS in MiB, the samples taken, the longest gap. */
export interface RssSamples {
  peakMiB: number;
  lastMiB: number;
  samples: number;
  maxGapMs: number;
}

/**
 * Samples a process's VmRSS every `everyMs` from a separate small process, so that a busy event
 * loop here (the bench's client and API share this process) cannot skip the peak. `stop()` ends it.
 */
export function sampleRss(pid: number, everyMs = 50): { stop(): Promise<RssSamples> } {
  const code = `
    const { readFileSync } = require("node:fs");
    const [pid, every] = process.argv.slice(1).map(Number);
    let peak = 0, last = 0, samples = 0, lastAt = 0, maxGap = 0;
    const read = () => {
      const now = performance.now();
      try {
        const match = /^VmRSS:\\s+(\\d+)\\s+kB/m.exec(readFileSync("/proc/" + pid + "/status", "utf8"));
        if (!match) return;
        last = Number(match[1]) / 1024;
      } catch { return; }
      peak = Math.max(peak, last);
      if (samples++ > 0) maxGap = Math.max(maxGap, now - lastAt);
      lastAt = now;
    };
    read();
    const timer = setInterval(read, every);
    process.stdin.on("end", () => {
      clearInterval(timer);
      read();
      process.stdout.write(JSON.stringify({ peakMiB: peak, lastMiB: last, samples, maxGapMs: maxGap }));
    });
    process.stdin.resume();`;
  const sampler = track(
    spawn(process.execPath, ["-e", code, String(pid), String(everyMs)], {
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
  let out = "";
  sampler.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return {
    async stop() {
      sampler.stdin.end();
      await exited(sampler, 5_000);
      return JSON.parse(out) as RssSamples;
    },
  };
}

/**
 * CPU time a process has used so far, in ms: the scheduler's own count for each of its threads
 * (/proc/<pid>/task/<tid>/sched, in ms to the nanosecond) where the kernel keeps one, else user + system
 * time from /proc/<pid>/stat, which counts in 10 ms ticks: too coarse for a window of a few
 * hundred calls. (A thread that has ended drops out of the first sum; a server's threads last.)
 */
export function cpuMs(pid: number): number {
  let sum = 0;
  let read = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let sched: string;
    try {
      sched = readFileSync(`/proc/${pid}/task/${task}/sched`, "utf8");
    } catch {
      continue; // a thread that ended meanwhile, or a kernel without the file
    }
    const runtime = /sum_exec_runtime\s*:\s*([\d.]+)/.exec(sched);
    if (!runtime) return ticksMs(pid);
    sum += Number(runtime[1]);
    read++;
  }
  return read > 0 ? sum : ticksMs(pid);
}

function ticksMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** A bundle to measure instead of mcp.json's (another build, to compare), if any. */
export const benchScript = process.env.PARTS_BENCH_SCRIPT || undefined;
/** Variables added to mcp.json's `env` for every server, as JSON (to measure a change of mcp.json). */
export const benchServerEnv = JSON.parse(process.env.PARTS_BENCH_SERVER_ENV || "{}") as Record<
  string,
  string
>;

interface McpJson {
  mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
}

/** The command and environment mcp.json gives, with `node` resolved to this Node. */
export function serverCommand(): { command: string; args: string[]; env: Record<string, string> } {
  const mcpJson = JSON.parse(readFileSync(join(repoRoot, "mcp.json"), "utf8")) as McpJson;
  const entry = mcpJson.mcpServers["parts-mcp"];
  if (!entry) throw new Error("mcp.json has no parts-mcp server");
  return {
    command: entry.command === "node" ? process.execPath : entry.command,
    // Node's flags from mcp.json stay; only the script is swapped for the bench's own build.
    args: benchScript ? [...entry.args.filter((arg) => arg.startsWith("--")), benchScript] : entry.args,
    env: { ...entry.env, ...benchServerEnv },
  };
}

/** The environment that points a server at an API this process runs. */
export const externalApiEnv = (api: EmbeddedApi): Record<string, string> => ({
  PARTS_API_BASE_URL: api.url,
  PARTS_API_TOKEN: api.demoToken,
});

/** parts-mcp as mcp.json starts it, plus `env`, node options before the script, or another bundle. */
export function oursSpec(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  script?: string,
): ServerSpec {
  const { command, args, env: base } = serverCommand();
  return {
    label: "parts-mcp",
    command,
    args: [...nodeArgs, ...(script ? [script] : args)],
    env: { ...base, PARTS_MCP_LOG_LEVEL: "warn", ...env },
  };
}

export const MINIMAL_SERVER = "test/bench/minimal-server.mjs";

/**
 * The minimal official-SDK server (test/bench/minimal-server.mjs) against the same API. It gets
 * mcp.json's environment too (MALLOC_ARENA_MAX among it), so that a ratio compares code, not
 * settings.
 */
export function minimalSpec(api: EmbeddedApi, extraArgs: string[] = []): ServerSpec {
  return {
    label: `minimal SDK server${extraArgs.length > 0 ? ` (${extraArgs.join(" ").replaceAll("--", "")})` : ""}`,
    command: process.execPath,
    args: [MINIMAL_SERVER, ...extraArgs],
    env: { ...serverCommand().env, ...externalApiEnv(api) },
  };
}

/** Waits for a child to exit, killing it if it has not within `ms`. */
export function exited(child: ChildProcess, ms = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const children = new Set<ChildProcess>();

/** A child that is killed if this process exits first: no server outlives a bench. */
export function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** Kills every child still running (the watchdog's last act). */
export function killChildren(): void {
  for (const child of children) child.kill("SIGKILL");
}

process.once("exit", killChildren);

// ---------------------------------------------------------------------------------------- report

type Verdict = "PASS" | "MISS";

interface Row {
  /** Section, e.g. "1 call overhead". */
  section: string;
  name: string;
  value: string;
  /** How the figure was measured. */
  how: string;
}

interface TargetResult {
  target: string;
  limit: string;
  measured: string;
  verdict: Verdict;
  /** Positive: room left; negative: how far off. With its unit. */
  margin: string;
}

export interface Report {
  rows: Row[];
  targets: TargetResult[];
  /** Machine-readable figures, by section. */
  data: Record<string, unknown>;
}

export function newReport(): Report {
  return { rows: [], targets: [], data: {} };
}

/** A target met when `measured <= limit` (or `>=` when `atLeast`). */
export function checkTarget(
  report: Report,
  target: string,
  measured: number,
  limit: number,
  unit: string,
  atLeast = false,
): void {
  const pass = atLeast ? measured >= limit : measured <= limit;
  const margin = atLeast ? measured - limit : limit - measured;
  const digits = Math.abs(limit) >= 100 ? 0 : 2;
  report.targets.push({
    target,
    limit: `${atLeast ? "≥" : "≤"} ${round(limit, digits)} ${unit}`,
    measured: `${round(measured, digits)} ${unit}`,
    verdict: pass ? "PASS" : "MISS",
    margin: `${margin >= 0 ? "+" : ""}${round(margin, digits)} ${unit}${pass ? " to spare" : " over"}`,
  });
}

export const ms = (value: number) => `${round(value, value < 10 ? 3 : 1)} ms`;
export const mib = (value: number) => `${round(value, 1)} MiB`;

/** `ours` as a multiple of `theirs`, e.g. "0.93×". */
export const times = (ours: number, theirs: number) => `${round(ours / theirs, 2)}×`;

/**
 * A target on a ratio to a server measured in the same run (a busy machine slows both alike), the
 * minimal SDK server unless `against` names another: met when ours / theirs ≤ limit (≥ with
 * `atLeast`). `format` prints each side.
 */
export function checkRatio(
  report: Report,
  target: string,
  ours: number,
  theirs: number,
  limit: number,
  format: (value: number) => string,
  atLeast = false,
  against = "minimal",
  ratio = ours / theirs,
): number {
  const pass = atLeast ? ratio >= limit : ratio <= limit;
  const margin = atLeast ? ratio - limit : limit - ratio;
  report.targets.push({
    target,
    limit: `${atLeast ? "≥" : "≤"} ${limit.toFixed(2)}× ${against}`,
    measured: `${ratio.toFixed(2)}× (${format(ours)} vs ${format(theirs)})`,
    verdict: pass ? "PASS" : "MISS",
    margin: `${margin >= 0 ? "+" : ""}${margin.toFixed(2)}×${pass ? " to spare" : " over"}`,
  });
  return ratio;
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(headers), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

export function formatReport(report: Report): string {
  const figures = table(
    ["Section", "Figure", "Value", "How measured"],
    report.rows.map((r) => [r.section, r.name, r.value, r.how]),
  );
  const targets = table(
    ["Target", "Limit", "Measured", "Verdict", "Margin"],
    report.targets.map((t) => [t.target, t.limit, t.measured, t.verdict, t.margin]),
  );
  return `${figures}\n\n${targets}\n`;
}

/** Up to 50 sample parts the demo organisation can read: the ids calls are made with. */
export function visibleSampleIds(api: TestApi): string[] {
  const org = api.accounts[0]?.orgId as string;
  return api.store
    .sampleParts()
    .map((p) => p.id)
    .filter((id) => api.store.partFor(id, org) !== undefined)
    .slice(0, 50);
}
