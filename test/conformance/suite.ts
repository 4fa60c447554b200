// The MCP conformance suite (@modelcontextprotocol/conformance) against `parts-mcp --http`, once
// per protocol revision the server speaks (`--requirements <revision>`: exactly the scenarios
// that revision requires, run at its own wire). The suite needs Node 22; it runs on the binary
// that scripts/conformance-node.mjs keeps in .cache/node22/, while the server stays on this Node.
// conformance.test.ts runs it inside `npm test`; `npm run conformance` runs it on its own and
// shows the suite's report:
//
//   npm run conformance [revision...]   (builds, starts an embedded API and the server, runs both)
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
// @ts-expect-error plain JavaScript, so that CI can call it before anything is built
import { conformanceNode } from "../../scripts/conformance-node.mjs";

const here = dirname(fileURLToPath(import.meta.url));

/** The revisions the server speaks, newest first: one run of the suite each. */
export const REVISIONS = ["2026-07-28", "2025-11-25"] as const;
export type Revision = (typeof REVISIONS)[number];

/** Per revision, because a scenario runs at that revision's wire and fails (or not) there. */
export const expectedFailuresFile = (revision: Revision) => join(here, `expected-failures.${revision}.yml`);

const require = createRequire(import.meta.url);
const packageJson = require.resolve("@modelcontextprotocol/conformance/package.json");
const bin = join(
  dirname(packageJson),
  (JSON.parse(readFileSync(packageJson, "utf8")) as { bin: { conformance: string } }).bin.conformance,
);

/** The Node 22 binary the suite runs on (installed into .cache/node22/ on first use). */
export const suiteNode = (): string => conformanceNode() as string;

/**
 * The server scenarios `revision` requires (scored), from the suite's own list. Scenarios it
 * runs without scoring them (extensions, pending) are left out: they cannot fail the run.
 */
export function listScenarios(revision: Revision): string[] {
  const out = execFileSync(suiteNode(), [bin, "list", "--server", "--requirements", revision], {
    encoding: "utf8",
  });
  const section = /Server scenarios[^\n]*\n((?:\s+-\s+\S+\s*\n)+)/.exec(out)?.[1] ?? "";
  return [...section.matchAll(/^\s+-\s+(\S+)\s*$/gm)].map((m) => m[1] as string);
}

/**
 * The entries of a revision's expected-failures file, each with the reason written after it.
 * An entry is a scenario, or `scenario:check-id` for one check of it.
 */
export function expectedFailures(revision: Revision): Map<string, string> {
  const entries = new Map<string, string>();
  const file = expectedFailuresFile(revision);
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const match = /^\s+-\s+([\w:-]+)\s*(?:#\s*(.*))?$/.exec(line);
    if (match) entries.set(match[1] as string, (match[2] ?? "").trim());
  }
  return entries;
}

export interface SuiteRun {
  /** 0 when every failure is expected and no expected failure passed. */
  code: number | null;
  /** Everything the suite printed (not shown by the test, read on failure). */
  output: string;
  ms: number;
}

/** Runs what `revision` requires against `url`, results in `outputDir`. */
export function runSuite(
  url: string,
  revision: Revision,
  outputDir: string,
  show = false,
): Promise<SuiteRun> {
  const args = [
    bin,
    "server",
    "--url",
    url,
    "--requirements",
    revision,
    "--expected-failures",
    expectedFailuresFile(revision),
    "-o",
    outputDir,
  ];
  const started = performance.now();
  const child = spawn(suiteNode(), args, {
    stdio: ["ignore", show ? "inherit" : "pipe", show ? "inherit" : "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return new Promise((resolve) =>
    child.once("exit", (code) => resolve({ code, output, ms: performance.now() - started })),
  );
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

/** What the runner counts against a scenario: failures, and warnings too. */
export const failedChecks = (checks: Check[] | undefined) =>
  (checks ?? []).filter((check) => check.status === "FAILURE" || check.status === "WARNING");

// `npm run conformance [revision...]`: the suite's own report for each revision, and its verdict.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { startEmbeddedApi } = await import("../../src/embedded");
  const { startHttpServer } = await import("./server");
  const asked = process.argv.slice(2);
  const unknown = asked.filter((r) => !(REVISIONS as readonly string[]).includes(r));
  if (unknown.length > 0) {
    console.error(`unknown revision(s) ${unknown.join(", ")}; revisions: ${REVISIONS.join(" ")}`);
    process.exit(2);
  }
  const revisions = asked.length > 0 ? (asked as Revision[]) : [...REVISIONS];
  const api = await startEmbeddedApi();
  const server = await startHttpServer(api);
  let failed = false;
  try {
    for (const revision of revisions) {
      const outputDir = mkdtempSync(join(tmpdir(), `parts-mcp-conformance-${revision}-`));
      console.log(`\n=== --requirements ${revision} ===`);
      const run = await runSuite(server.url, revision, outputDir, true);
      if (process.env.PARTS_CONFORMANCE_KEEP) console.log(`results kept in ${outputDir}`);
      else rmSync(outputDir, { recursive: true, force: true });
      failed ||= run.code !== 0;
    }
  } finally {
    await server.stop();
    await api.close();
  }
  process.exit(failed ? 1 : 0);
}
