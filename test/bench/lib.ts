// Shared pieces of `npm run bench`: the servers compared (parts-mcp's plain bundle and the minimal
// official-SDK server, test/bench/minimal-server.mjs), a process's RSS and CPU time, child
// processes that never outlive the bench, and the one table of rows it prints.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EmbeddedApi } from "../../src/embedded";

/** How to start one server: the command line and its whole environment (PATH added). */
export interface ServerSpec {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Rejects after `ms` with a message naming what took too long: no benchmark waits for ever. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

// ----------------------------------------------------------------------------------- servers

/** parts-mcp as the package ships it: the plain bundle, run by this Node. */
const BUNDLE = join(repoRoot, "dist/parts-mcp.js");
const MINIMAL_SERVER = join(repoRoot, "test/bench/minimal-server.mjs");
/** The access key both HTTP servers check on every request. */
export const ACCESS_KEY = "bench-0123456789abcdef0123456789abcdef";

const apiEnv = (api: EmbeddedApi): Record<string, string> => ({
  PARTS_API_BASE_URL: api.url,
  PARTS_API_TOKEN: api.demoToken,
});

export function oursSpec(
  api: EmbeddedApi,
  args: string[] = [],
  env: Record<string, string> = {},
): ServerSpec {
  return {
    label: "parts-mcp",
    command: process.execPath,
    args: [BUNDLE, ...args],
    env: { PARTS_API_ENV: "local", ...apiEnv(api), PARTS_MCP_LOG_LEVEL: "warn", ...env },
  };
}

/** The minimal server from its sources (it calls the API with undici's `request`). */
export function minimalSpec(api: EmbeddedApi, args: string[] = []): ServerSpec {
  return {
    label: "minimal SDK server",
    command: process.execPath,
    args: [MINIMAL_SERVER, ...args],
    env: apiEnv(api),
  };
}

// --------------------------------------------------------------------------------- processes

/** Resident set size of a process in MiB (VmRSS). */
export function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Samples a process's VmRSS every 50 ms from this process; `stop()` gives the peak in MiB. */
export function sampleRss(pid: number): { stop(): number } {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch {
      // the process ended
    }
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** CPU time a process has used, in ms: the scheduler's count of each thread (ns precision). */
export function cpuMs(pid: number): number {
  let sum = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const sched = readFileSync(`/proc/${pid}/task/${task}/sched`, "utf8");
      sum += Number(/sum_exec_runtime\s*:\s*([\d.]+)/.exec(sched)?.[1] ?? 0);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return sum;
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

export function killChildren(): void {
  for (const child of children) child.kill("SIGKILL");
}

process.once("exit", killChildren);

/** An HTTP server started with `args`, its URL read from the line it logs on stderr. */
export async function startHttp(
  spec: ServerSpec,
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = track(
    spawn(spec.command, spec.args, { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", ...spec.env } }),
  );
  child.stdout.resume();
  let stderr = "";
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /"url":"([^"]+)"/.exec(stderr)?.[1];
        if (found) resolve(found);
      });
      child.once("exit", (code) =>
        reject(new Error(`${spec.label} exited (${code}): ${stderr.slice(-500)}`)),
      );
    }),
    60_000,
    `${spec.label} start`,
  );
  return {
    url,
    pid: child.pid as number,
    async stop() {
      child.kill("SIGTERM");
      await exited(child, 10_000);
    },
  };
}

// ------------------------------------------------------------------------------------- rows

/** One line of the table: a figure, the yardstick it is measured against, and its target. */
export interface Row {
  name: string;
  /** The figure as measured, with its unit (and the yardstick's beside it). */
  measured: string;
  /** The value the target is checked on (a ratio, a count, ms or MiB). */
  value: number;
  target: { limit: number; atLeast?: boolean; unit: string };
  how: string;
}

export const ratioRow = (
  name: string,
  ours: number,
  theirs: number,
  unit: string,
  limit: number,
  how: string,
  atLeast = false,
): Row => ({
  name,
  measured: `${round(ours, 2)} vs ${round(theirs, 2)} ${unit}`,
  value: ours / theirs,
  target: { limit, atLeast, unit: "×" },
  how,
});

export function formatRows(rows: readonly Row[]): string {
  const cells = rows.map((row) => {
    const { limit, atLeast, unit } = row.target;
    const pass = atLeast ? row.value >= limit : row.value <= limit;
    return [
      row.name,
      row.measured,
      `${round(row.value, 2)}${unit === "×" ? "×" : ` ${unit}`}`,
      `${atLeast ? "≥" : "≤"} ${limit}${unit === "×" ? "×" : ` ${unit}`}`,
      pass ? "PASS" : "MISS",
      row.how,
    ];
  });
  const headers = ["Row", "Measured", "Value", "Target", "Verdict", "How"];
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(headers), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...cells.map(line)].join(
    "\n",
  );
}
