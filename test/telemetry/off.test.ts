// Telemetry off costs nothing: without an OTLP endpoint or a metrics port the built server loads no OpenTelemetry module, and the server bundle carries none; the telemetry bundle carries no copy of the MCP SDK.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { repoRoot, startServer } from "../support/mcp-server";

const PROBE = join(repoRoot, "test/telemetry/loaded-modules.cjs");
const TELEMETRY_FILE = "parts-mcp.telemetry.js";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

/** The module files a server started with `env` loaded, from a call to its exit. */
async function modulesLoaded(env: Record<string, string>): Promise<string[]> {
  const server = await startServer({ sharedApi: api, env: { NODE_OPTIONS: `--require ${PROBE}`, ...env } });
  const result = await server.call("list_parts", { pageSize: 1 });
  expect(result.isError).toBeFalsy();
  await server.close();
  const until = Date.now() + 10_000;
  for (;;) {
    const line = /loaded-modules: (.*)\n/.exec(server.stderr());
    if (line) return JSON.parse(line[1] as string) as string[];
    if (Date.now() > until) throw new Error(`no loaded-modules line:\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("telemetry off", () => {
  it("loads no OpenTelemetry module when neither OTLP nor a metrics port is configured", async () => {
    const modules = await modulesLoaded({});
    expect(modules.some((path) => path.endsWith("parts-mcp.js"))).toBe(true);
    expect(modules.filter((path) => path.includes(TELEMETRY_FILE) || path.includes("opentelemetry"))).toEqual(
      [],
    );
  });

  it("loads it when a metrics port is set (the probe sees it)", async () => {
    const modules = await modulesLoaded({ PARTS_MCP_METRICS_PORT: "0" });
    expect(modules.filter((path) => path.endsWith(TELEMETRY_FILE))).toHaveLength(1);
  });

  it("keeps OpenTelemetry, its API included, out of the server bundle", () => {
    // The API's global registry key is a string literal that survives minification.
    const marker = "opentelemetry.js.api";
    expect(readFileSync(join(repoRoot, "dist/parts-mcp.js"), "utf8")).not.toContain(marker);
    expect(readFileSync(join(repoRoot, "dist", TELEMETRY_FILE), "utf8")).toContain(marker);
  });

  it("keeps the MCP SDK out of the telemetry bundle: it uses the server bundle's copy", () => {
    // A method name only the SDK spells out (src/ never does); it survives minification.
    const marker = "notifications/initialized";
    // Booleans: a failing toContain would print the whole bundle.
    expect(readFileSync(join(repoRoot, "dist/parts-mcp.js"), "utf8").includes(marker)).toBe(true);
    expect(readFileSync(join(repoRoot, "dist", TELEMETRY_FILE), "utf8").includes(marker)).toBe(false);
  });
});
