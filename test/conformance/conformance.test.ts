// The MCP conformance suite against the HTTP server (spawned as mcp.json says), once per revision
// the server speaks: `--requirements 2026-07-28` and `--requirements 2025-11-25`. Every scenario
// each revision requires passes, except the entries of that revision's expected-failures file;
// each entry names a fixture of the suite's reference server (or, once, says why a stateless
// server cannot pass), and does fail, for that reason (no stale entry). The suite runs on Node 22
// (scripts/conformance-node.mjs installs it apart on first use); the server on this Node.
// `npm run conformance` prints the suite's own report.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedApi, startEmbeddedApi } from "../../src/embedded";
import { type ConformanceServer, startHttpServer } from "./server";
import {
  type Check,
  expectedFailures,
  failedChecks,
  listScenarios,
  REVISIONS,
  type Revision,
  readResults,
  runSuite,
  type SuiteRun,
} from "./suite";

const plan = REVISIONS.map((revision) => {
  const expected = expectedFailures(revision);
  const wholeScenarios = [...expected.keys()].filter((entry) => !entry.includes(":"));
  const singleChecks = [...expected.keys()].filter((entry) => entry.includes(":"));
  return { revision, scenarios: listScenarios(revision), expected, wholeScenarios, singleChecks };
});

let api: EmbeddedApi;
let server: ConformanceServer;
let outputDir: string;
const runs = new Map<Revision, { run: SuiteRun; results: Map<string, Check[]> }>();

beforeAll(async () => {
  api = await startEmbeddedApi();
  server = await startHttpServer(api);
  outputDir = mkdtempSync(join(tmpdir(), "parts-mcp-conformance-"));
  for (const revision of REVISIONS) {
    const dir = join(outputDir, revision);
    const run = await runSuite(server.url, revision, dir);
    runs.set(revision, { run, results: readResults(dir) });
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await api?.close();
  if (outputDir) rmSync(outputDir, { recursive: true, force: true });
});

const messageOf = (check: Check) => check.errorMessage ?? JSON.stringify(check.details ?? "");

/** The fixtures an entry's reason names: test_* tools and prompts, test:// resources. */
function fixturesIn(reason: string): RegExp[] {
  return [...reason.matchAll(/\btest_\w+|json_schema_2020_12_tool|test:\/\/[^\s,)]+/g)].map(
    ([name]) => new RegExp(name.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")),
  );
}

/** What the input-required scenarios say when their fixture tool is missing, without naming it. */
const UNNAMED_INPUT_REQUIRED_FIXTURE = [
  "Expected InputRequiredResult with inputRequests and requestState",
  "Prerequisite failed: could not get initial InputRequiredResult",
  "Server returned JSON-RPC error instead of re-requesting via InputRequiredResult",
];

/**
 * Whether a failed check failed for the reason its entry gives: its message names the fixture;
 * or it is what an input-required scenario says of a missing fixture without naming it; or, for
 * the stateless entries, the server declined the session or method the check needs.
 */
function failsForItsReason(check: Check, reason: string): boolean {
  const message = messageOf(check);
  if (fixturesIn(reason).some((fixture) => fixture.test(message))) return true;
  if (
    /test_input_required_result_\w+/.test(reason) &&
    UNNAMED_INPUT_REQUIRED_FIXTURE.some((text) => message.startsWith(text))
  ) {
    return true;
  }
  return /stateless/.test(reason) && /Method not found|did not provide session ID/.test(message);
}

describe.each(plan)("MCP conformance, --requirements $revision", (p) => {
  const suite = () => runs.get(p.revision) as { run: SuiteRun; results: Map<string, Check[]> };

  it("knows the scenarios; every expected failure is one of them, with a reason naming a fixture", () => {
    expect(p.scenarios.length).toBeGreaterThan(20);
    for (const [entry, reason] of p.expected) {
      expect(p.scenarios, entry).toContain(entry.split(":")[0]);
      expect(
        fixturesIn(reason).length > 0 || /stateless/.test(reason),
        `${entry} needs a reason naming the fixture it needs`,
      ).toBe(true);
    }
  });

  it("passes against the expected-failures baseline (nothing unexpected, nothing stale)", () => {
    const { run } = suite();
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toMatch(/Unexpected failures|stale/i);
  });

  describe.each(p.scenarios.filter((name) => !p.wholeScenarios.includes(name)))("%s", (name) => {
    it("passes (every check but the single ones its revision's file excuses)", () => {
      const { run, results } = suite();
      expect(results.has(name), `no results for ${name}:\n${run.output}`).toBe(true);
      const excused = new Set(
        p.singleChecks.filter((e) => e.startsWith(`${name}:`)).map((e) => e.split(":")[1]),
      );
      const failed = failedChecks(results.get(name)).filter((check) => !excused.has(check.id));
      expect(failed.map((check) => `${check.id}: ${messageOf(check)}`)).toEqual([]);
    });
  });

  describe.each([...p.expected.keys()])("%s (expected to fail)", (entry) => {
    it("fails, and only for want of the reference server's fixture", () => {
      const [name, checkId] = entry.split(":") as [string, string | undefined];
      const failed = failedChecks(suite().results.get(name)).filter((c) => !checkId || c.id === checkId);
      expect(failed.length, `${entry} passed: remove it from its expected-failures file`).toBeGreaterThan(0);
      const reason = p.expected.get(entry) ?? "";
      for (const check of failed) {
        expect(failsForItsReason(check, reason), `${entry}: ${check.id}: ${messageOf(check)}`).toBe(true);
      }
    });
  });
});
