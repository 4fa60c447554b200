// The MCP conformance suite against the HTTP server (spawned from dist/parts-mcp.js, as an
// operator runs it): every scenario passes except those in expected-failures.yml, each of which
// names a fixture of the suite's reference server, and each of which does fail (no stale entry).
// The suite's own report stays in its output (shown only when the run fails); `npm run
// conformance` prints it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedApi, startEmbeddedApi } from "../../src/embedded";
import { type HttpServerProcess, spawnHttpServer } from "../http/support";
import { type Check, expectedFailures, listScenarios, readResults, runSuite, type SuiteRun } from "./suite";

const scenarios = listScenarios();
const expected = expectedFailures();

let api: EmbeddedApi;
let server: HttpServerProcess;
let outputDir: string;
let run: SuiteRun;
let results: Map<string, Check[]>;

beforeAll(async () => {
  api = await startEmbeddedApi();
  server = await spawnHttpServer({ api });
  outputDir = mkdtempSync(join(tmpdir(), "parts-mcp-conformance-"));
  run = await runSuite(server.url, outputDir);
  results = readResults(outputDir);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await api?.close();
  if (outputDir) rmSync(outputDir, { recursive: true, force: true });
});

/** What the runner counts against a scenario: failures, and warnings too. */
const failures = (checks: Check[] | undefined) =>
  (checks ?? []).filter((check) => check.status === "FAILURE" || check.status === "WARNING");

describe("MCP conformance (@modelcontextprotocol/conformance, --suite all)", () => {
  it("knows the scenarios, and every expected failure is one of them, with its reason", () => {
    expect(scenarios.length).toBeGreaterThan(20);
    for (const [name, reason] of expected) {
      expect(scenarios, name).toContain(name);
      expect(reason, `${name} needs a reason in expected-failures.yml`).toMatch(/\w{3,}/);
    }
  });

  it("passes against the expected-failures baseline", () => {
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Baseline check passed/);
  });

  describe.each(scenarios.filter((name) => !expected.has(name)))("%s", (name) => {
    it("passes", () => {
      expect(results.has(name), `no results for ${name}:\n${run.output}`).toBe(true);
      expect(failures(results.get(name))).toEqual([]);
    });
  });

  describe.each([...expected.keys()])("%s (expected to fail)", (name) => {
    it("fails only for want of the reference server's fixtures", () => {
      const failed = failures(results.get(name));
      expect(failed.length, `${name} passed: remove it from expected-failures.yml`).toBeGreaterThan(0);
      const reason = expected.get(name) ?? "";
      for (const check of failed) {
        const message = check.errorMessage ?? JSON.stringify(check.details ?? "");
        const fixture =
          /(Unknown tool |Tool '|Prompt |Resource )(test_|test:\/\/|json_schema_2020_12_tool)/.test(message);
        // Sessions and subscriptions: declined before a fixture is looked up (see the reason).
        const unsupported =
          /stateless/.test(reason) && /Method not found|did not provide session ID/.test(message);
        expect(fixture || unsupported, `${name}: ${message}`).toBe(true);
      }
    });
  });
});
