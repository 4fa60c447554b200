// The MCP conformance suite (@modelcontextprotocol/conformance) against `parts-mcp --http`.
// conformance.test.ts runs it inside `npm test`; `npm run conformance` runs it on its own and
// shows the suite's report:
//
//   npm run conformance            (builds, starts an embedded API and the server, runs the suite)
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const EXPECTED_FAILURES = join(here, "expected-failures.yml");

const require = createRequire(import.meta.url);
const packageJson = require.resolve("@modelcontextprotocol/conformance/package.json");
const bin = join(
  dirname(packageJson),
  (JSON.parse(readFileSync(packageJson, "utf8")) as { bin: { conformance: string } }).bin.conformance,
);

/** Every server scenario the installed suite knows. */
export function listScenarios(): string[] {
  const out = execFileSync(process.execPath, [bin, "list", "--server"], { encoding: "utf8" });
  return [...out.matchAll(/^\s+-\s+(\S+)\s*$/gm)].map((m) => m[1] as string);
}

/** The entries of expected-failures.yml, each with the reason written after it. */
export function expectedFailures(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of readFileSync(EXPECTED_FAILURES, "utf8").split("\n")) {
    const match = /^\s+-\s+([\w-]+)\s*(?:#\s*(.*))?$/.exec(line);
    if (match) entries.set(match[1] as string, (match[2] ?? "").trim());
  }
  return entries;
}

export interface SuiteRun {
  /** 0 when every failure is expected and no expected failure passed. */
  code: number | null;
  /** Everything the suite printed (not shown by the test, read on failure). */
  output: string;
}

/** Runs every scenario (`--suite all`) against `url`, results in `outputDir`. */
export function runSuite(url: string, outputDir: string, show = false): Promise<SuiteRun> {
  const args = [
    bin,
    "server",
    "--url",
    url,
    "--suite",
    "all",
    "--expected-failures",
    EXPECTED_FAILURES,
    "-o",
    outputDir,
  ];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", show ? "inherit" : "pipe", show ? "inherit" : "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: unknown;
}

/** The checks of each scenario run, from the suite's output directory. */
export function readResults(outputDir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  if (!existsSync(outputDir)) return results;
  for (const entry of readdirSync(outputDir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = join(outputDir, entry, "checks.json");
    if (!match || !existsSync(file)) continue;
    results.set(match[1] as string, JSON.parse(readFileSync(file, "utf8")) as Check[]);
  }
  return results;
}

// `npm run conformance`: the suite's own report, and its exit code.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { startEmbeddedApi } = await import("../../src/embedded");
  const { spawnHttpServer } = await import("../http/support");
  const api = await startEmbeddedApi();
  const server = await spawnHttpServer({ api });
  const outputDir = mkdtempSync(join(tmpdir(), "parts-mcp-conformance-"));
  const { code } = await runSuite(server.url, outputDir, true);
  await server.stop();
  await api.close();
  rmSync(outputDir, { recursive: true, force: true });
  process.exit(code ?? 1);
}
