// Client-chosen names never become metric series of their own: through the built HTTP server with
// a metrics port, tools/call and prompts/get with names the server does not serve (huge ones, or
// thousands of short ones) are recorded under "_unknown", a scrape stays small and quick, the
// process lives, and a real tool's calls keep their own series.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { type HttpServerProcess, MCP_HEADERS, raw, spawnHttpServer, toolCall } from "../http/support";
import { freePort } from "./support";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

async function startServer(): Promise<{ server: HttpServerProcess; metricsUrl: string }> {
  const port = await freePort();
  const server = await spawnHttpServer({ api, env: { PARTS_MCP_METRICS_PORT: String(port) } });
  return { server, metricsUrl: `http://127.0.0.1:${port}/metrics` };
}

/** Sends `bodies` to /mcp, `parallel` at a time; each must be answered (any status). */
async function sendAll(url: string, bodies: string[], parallel: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++] as string;
      const res = await raw(url, { headers: MCP_HEADERS, body });
      expect(res.status).toBeLessThan(500);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

const promptGet = (name: string, id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "prompts/get", params: { name, arguments: {} } });

/** The label values of `label` across every series of the scrape. */
function labelValues(scrape: string, label: string): Set<string> {
  const values = new Set<string>();
  for (const match of scrape.matchAll(new RegExp(`${label}="([^"]*)"`, "g"))) values.add(match[1] as string);
  return values;
}

describe("names the server does not serve", () => {
  it("170 calls with 200 KiB unknown names: a quick, small scrape, and the process lives", async () => {
    const { server, metricsUrl } = await startServer();
    try {
      const bodies = Array.from({ length: 170 }, (_, i) =>
        i % 10 === 9
          ? promptGet(`${i}`.padEnd(200 * 1024, "p"), i)
          : toolCall(`${i}`.padEnd(200 * 1024, "x"), {}, i),
      );
      await sendAll(server.url, bodies, 4);

      const started = Date.now();
      const scrape = await fetch(metricsUrl);
      const body = await scrape.text();
      const took = Date.now() - started;
      expect(scrape.status).toBe(200);
      expect(body.length).toBeLessThan(200_000);
      expect(took).toBeLessThan(5_000);
      expect(labelValues(body, "gen_ai_tool_name")).toEqual(new Set(["_unknown"]));
      expect(labelValues(body, "gen_ai_prompt_name")).toEqual(new Set(["_unknown"]));
      // Every label value is short.
      for (const match of body.matchAll(/="([^"]*)"/g))
        expect((match[1] as string).length).toBeLessThanOrEqual(128);

      expect(server.child.exitCode).toBeNull();
      const health = await raw(server.url.replace("/mcp", "/healthz"), { method: "GET" });
      expect(health.status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("2,100 short junk names leave a real tool its own series", async () => {
    const { server, metricsUrl } = await startServer();
    try {
      const junk = Array.from({ length: 2_100 }, (_, i) => toolCall(`junk_${i}`, {}, i));
      await sendAll(server.url, junk, 8);
      const real = await raw(server.url, {
        headers: MCP_HEADERS,
        body: toolCall("get_process", { code: "cnc-milling" }, 9_999),
      });
      expect(real.status).toBe(200);

      const body = await (await fetch(metricsUrl)).text();
      const series = body
        .split("\n")
        .filter((line) => line.startsWith("mcp_server_operation_duration_count{"));
      const realSeries = series.filter((line) => line.includes('gen_ai_tool_name="get_process"'));
      expect(realSeries).toHaveLength(1);
      expect(realSeries[0]).toMatch(/ 1$/);
      expect(body).not.toContain("otel_metric_overflow");
      const unknown = series.filter((line) => line.includes('gen_ai_tool_name="_unknown"'));
      expect(unknown.map((line) => Number(line.split(" ").at(-1))).reduce((a, b) => a + b, 0)).toBe(2_100);
      expect(labelValues(body, "gen_ai_tool_name")).toEqual(new Set(["_unknown", "get_process"]));
      // A version the SDK speaks is recorded as it is (the server bundle's SDK tells which).
      expect(labelValues(body, "mcp_protocol_version")).toEqual(
        new Set([MCP_HEADERS["mcp-protocol-version"]]),
      );
    } finally {
      await server.stop();
    }
  }, 120_000);
});
