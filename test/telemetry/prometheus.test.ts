// A real Prometheus (Debian's `prometheus`, installed by .ci/run) scrapes the HTTP server's /metrics on its own port, and its query API shows the server's metrics: operation durations, upstream requests, calls shed, search index sizes.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, connect, type HttpServerProcess, spawnHttpServer } from "../http/support";
import { freePort } from "./support";

const prometheusBinary = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v prometheus"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
})();
if (!prometheusBinary) console.warn("prometheus is not installed (.ci/run installs it): its test is skipped");

let api: TestApi;
let server: HttpServerProcess;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let metricsPort: number;
const dir = mkdtempSync(join(tmpdir(), "parts-mcp-prometheus-"));

beforeAll(async () => {
  if (!prometheusBinary) return;
  api = await startTestApi();
  metricsPort = await freePort();
  server = await spawnHttpServer({
    api,
    env: { PARTS_MCP_METRICS_PORT: String(metricsPort), PARTS_MCP_MAX_IN_FLIGHT: "1" },
  });
  const prometheusPort = await freePort();
  writeFileSync(
    join(dir, "prometheus.yml"),
    [
      "global:",
      "  scrape_interval: 1s",
      "scrape_configs:",
      "  - job_name: parts-mcp",
      "    static_configs:",
      `      - targets: ["127.0.0.1:${metricsPort}"]`,
      "",
    ].join("\n"),
  );
  prometheus = spawn(
    prometheusBinary,
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${prometheusPort}`,
    ],
    { stdio: "ignore" },
  );
  prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
}, 30_000);

afterAll(async () => {
  prometheus?.kill("SIGTERM");
  await server?.stop();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

/** Polls Prometheus' query API until `query` returns samples that `enough` accepts. */
async function queryUntil(query: string, enough: (samples: Sample[]) => boolean): Promise<Sample[]> {
  const until = Date.now() + 20_000;
  let last: Sample[] = [];
  for (;;) {
    try {
      const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(query)}`);
      if (response.ok) {
        last = ((await response.json()) as { data: { result: Sample[] } }).data.result;
        if (enough(last)) return last;
      }
    } catch {
      // Prometheus still starting.
    }
    if (Date.now() > until) throw new Error(`${query}: got ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.skipIf(!prometheusBinary)("metrics scraped by Prometheus", () => {
  it("shows operation durations, upstream requests, calls shed and the search index", async () => {
    const client = await connect(server.url);
    const found = await call(client, "search_parts", { text: "titanium" });
    expect(found.isError).toBeFalsy();
    // With one call allowed in flight, a second call during a slow one is shed with a 503.
    api.faults.add({ endpoint: "getPart", action: { kind: "latency", ms: 800 }, times: 1 });
    const id = (found.structuredContent as { items: { id: string }[] }).items[0]?.id ?? "";
    const slow = call(client, "get_part", { id });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const shedResponse = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
    });
    expect(shedResponse.status).toBe(503);
    await slow;
    await client.close();

    const durations = await queryUntil(
      'mcp_server_operation_duration_count{mcp_method_name="tools/call",gen_ai_tool_name="search_parts"}',
      (samples) => samples.length > 0,
    );
    expect(Number(durations[0]?.value[1])).toBeGreaterThanOrEqual(1);
    const upstream = await queryUntil(
      'http_client_request_duration_count{url_template="/v1/parts",http_response_status_code="200"}',
      (samples) => samples.length > 0,
    );
    expect(Number(upstream[0]?.value[1])).toBeGreaterThanOrEqual(1);
    const shed = await queryUntil(
      'parts_mcp_calls_shed_total{parts_mcp_shed_reason="busy"}',
      (samples) => samples.length > 0,
    );
    expect(Number(shed[0]?.value[1])).toBe(1);
    // Nothing in flight once every call is answered.
    const inFlight = await queryUntil(
      'parts_mcp_calls_in_flight{mcp_method_name="tools/call"}',
      (samples) => samples.length > 0,
    );
    expect(Number(inFlight[0]?.value[1])).toBe(0);
    const parts = await queryUntil("parts_mcp_search_index_parts", (samples) => samples.length > 0);
    expect(Number(parts[0]?.value[1])).toBeGreaterThan(0);
    const bytes = await queryUntil("parts_mcp_search_index_size", (samples) => samples.length > 0);
    expect(Number(bytes[0]?.value[1])).toBeGreaterThan(0);
  });

  it("serves /metrics only on its own port, never on the MCP port", async () => {
    const onMcpPort = await fetch(new URL("/metrics", server.url));
    expect(onMcpPort.status).toBe(404);
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain("mcp_server_operation_duration");
  });
});
