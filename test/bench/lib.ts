// Shared pieces of the benchmark suite: sample statistics, the server spawned as mcp.json starts
// it, the RSS of a process, and the rows of the report. Benchmarks are scripts, not tests: every
// figure says how it was measured, and every wait is bounded.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { EmbeddedApi } from "../../src/embedded";
import { mcpJsonEntry, repoRoot } from "../support/mcp-server";

export { repoRoot };

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
export function percentile(sorted: readonly number[], p: number): number {
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

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
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

/** The command and environment mcp.json gives, with `node` resolved to this Node. */
export function serverCommand(): { command: string; args: string[]; env: Record<string, string> } {
  const entry = mcpJsonEntry();
  return {
    command: entry.command === "node" ? process.execPath : entry.command,
    args: benchScript ? [benchScript] : entry.args,
    env: { ...entry.env, ...benchServerEnv },
  };
}

/** The environment that points a server at an API this process runs. */
export const externalApiEnv = (api: EmbeddedApi): Record<string, string> => ({
  PARTS_API_BASE_URL: api.url,
  PARTS_API_TOKEN: api.demoToken,
});

export interface BenchServer {
  client: Client;
  pid: number;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface SpawnOptions {
  /** Added to mcp.json's environment (PARTS_MCP_LOG_LEVEL, the API's URL and token...). */
  env?: Record<string, string>;
  /** Extra node options before the script (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** List the tools first, as a client does (the SDK client then checks structuredContent). */
  listTools?: boolean;
  /** Another bundle instead of mcp.json's script (the profiling build, with its source map). */
  script?: string;
}

/**
 * The server started exactly as mcp.json says (stdio), with an SDK Client connected. Its stderr
 * is drained and dropped, so that logging costs the server what writing to a pipe costs.
 */
export async function spawnServer(options: SpawnOptions = {}): Promise<BenchServer> {
  const { command, args, env } = serverCommand();
  const transport = new StdioClientTransport({
    command,
    args: [...(options.nodeArgs ?? []), ...(options.script ? [options.script] : args)],
    cwd: repoRoot,
    env: { ...env, ...options.env },
    stderr: "pipe",
  });
  let stderrTail = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-4_000);
  });
  const client = new Client({ name: "parts-mcp-bench", version: "1.0.0" });
  await withTimeout(client.connect(transport), 10_000, "server start");
  if (options.listTools !== false) await client.listTools();
  const pid = transport.pid;
  if (pid === null) throw new Error("the server has no pid");
  let closed: Promise<void> | undefined;
  return {
    client,
    pid,
    call: async (name, callArgs = {}) => {
      try {
        return (await client.callTool({ name, arguments: callArgs }, undefined, {
          timeout: 30_000,
        })) as CallToolResult;
      } catch (error) {
        throw new Error(
          `${name} failed: ${String(error)}; server stderr ends with: ${stderrTail.slice(-1_000)}`,
        );
      }
    },
    close: () => {
      closed ??= withTimeout(client.close(), 5_000, "server close").catch(() => {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      });
      return closed;
    },
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

export type Verdict = "PASS" | "MISS";

export interface Row {
  /** Section, e.g. "1 call overhead". */
  section: string;
  name: string;
  value: string;
  /** How the figure was measured. */
  how: string;
}

export interface TargetResult {
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

/**
 * A bare stdio session with the server (no SDK): initialize, then each request in turn; returns
 * the raw JSON text of each result, exactly as the server wrote it.
 */
export async function rawExchange(
  env: Record<string, string>,
  requests: { method: string; params?: unknown }[],
  script?: string,
): Promise<string[]> {
  const { command, args, env: baseEnv } = serverCommand();
  const child = track(
    spawn(command, script ? [script] : args, {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", ...baseEnv, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
  child.stderr.resume();
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const all = [
    {
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "parts-mcp-bench", version: "1.0.0" },
      },
    },
    ...requests,
  ];
  const results: string[] = [];
  let buffer = "";
  const done = new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited (${code})`)));
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
        if (typeof message.id !== "number") continue;
        if (message.error) reject(new Error(`${all[message.id]?.method}: ${JSON.stringify(message.error)}`));
        // The result's own text: the line minus the envelope around it.
        results.push(JSON.stringify(message.result));
        if (message.id === 0) send({ jsonrpc: "2.0", method: "notifications/initialized" });
        const nextId = message.id + 1;
        const next = all[nextId];
        if (next) send({ jsonrpc: "2.0", id: nextId, ...next });
        else resolve();
      }
    });
  });
  send({ jsonrpc: "2.0", id: 0, ...all[0] });
  try {
    await withTimeout(done, 10_000, "raw exchange");
    return results.slice(1);
  } finally {
    child.stdin.end();
    await exited(child);
  }
}

/** Up to 50 sample parts the demo organisation can read: the ids calls are made with. */
export function visibleSampleIds(api: EmbeddedApi): string[] {
  const org = api.accounts[0]?.orgId as string;
  return api.store
    .sampleParts()
    .map((p) => p.id)
    .filter((id) => api.store.partFor(id, org) !== undefined)
    .slice(0, 50);
}
