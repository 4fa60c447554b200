// Traces and metrics as an OTLP receiver gets them from the built server: SERVER spans after the MCP semantic conventions, parented by params._meta or the HTTP headers, a CLIENT span per upstream attempt, and the metrics.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { connect, spawnHttpServer } from "../http/support";
import { mcpJsonEntry, mcpJsonEnv, repoRoot, startServer } from "../support/mcp-server";
import { CLIENT, type OtlpReceiver, otlpEnv, type ReceivedSpan, SERVER, startOtlpReceiver } from "./support";

let api: TestApi;
let receiver: OtlpReceiver;
beforeAll(async () => {
  api = await startTestApi();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;

/** A part id of the sample catalogue. */
async function somePartId(call: (name: string, args: Record<string, unknown>) => Promise<unknown>) {
  const listed = (await call("list_parts", { pageSize: 1 })) as {
    structuredContent: { items: { id: string }[] };
  };
  return listed.structuredContent.items[0]?.id as string;
}

const serverSpan = (traceId: string, name: string) => () =>
  receiver.spans.find((span) => span.traceId === traceId && span.kind === SERVER && span.name === name);

describe("telemetry over OTLP (stdio)", () => {
  it("traces a tools/call under the caller's params._meta context, with one CLIENT span per attempt", async () => {
    const server = await startServer({ sharedApi: api, env: otlpEnv(receiver) });
    try {
      const id = await somePartId(server.call);
      // The first attempt gets a 503 and is retried at once.
      api.faults.add({
        endpoint: "getPart",
        action: { kind: "status", status: 503, retryAfter: "0" },
        times: 1,
      });
      const result = await server.client.callTool({
        name: "get_part",
        arguments: { id },
        _meta: { traceparent: traceparent(TRACE_ID, CALLER_SPAN), tracestate: "rojo=00f067aa0ba902b7" },
      });
      expect(result.isError).toBeFalsy();

      const span = await receiver.waitFor(serverSpan(TRACE_ID, "tools/call get_part"));
      expect(span.parentSpanId).toBe(CALLER_SPAN);
      expect(span.attributes).toMatchObject({
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "get_part",
        "gen_ai.operation.name": "execute_tool",
        "network.transport": "pipe",
      });
      expect(span.attributes["jsonrpc.request.id"]).toMatch(/^\d+$/);
      expect(span.attributes["error.type"]).toBeUndefined();

      const attempts = await receiver.waitFor(() => {
        const found = receiver.spans.filter(
          (each) => each.parentSpanId === span.spanId && each.kind === CLIENT,
        );
        return found.length >= 2 ? found : undefined;
      });
      expect(attempts).toHaveLength(2);
      const [first, second] = [...attempts].sort(
        (a, b) =>
          Number(a.attributes["http.request.resend_count"] ?? 0) -
          Number(b.attributes["http.request.resend_count"] ?? 0),
      ) as [ReceivedSpan, ReceivedSpan];
      expect(first.name).toBe("GET /v1/parts/{id}");
      expect(first.attributes).toMatchObject({
        "http.request.method": "GET",
        "url.template": "/v1/parts/{id}",
        "http.response.status_code": 503,
        "error.type": "503",
        "server.address": "127.0.0.1",
      });
      expect(second.attributes).toMatchObject({
        "http.response.status_code": 200,
        "http.request.resend_count": 1,
      });
      expect(second.attributes["error.type"]).toBeUndefined();
      expect(String(first.attributes["url.full"])).toContain(`/v1/parts/${encodeURIComponent(id)}`);
      // Each attempt carries its own context upstream: the API saw the retry's span as parent.
      expect(api.stats.lastHeaders("getPart")?.traceparent).toBe(traceparent(TRACE_ID, second.spanId));

      // The retry is counted.
      await receiver.waitFor(() =>
        receiver.metrics.find(
          (metric) =>
            metric.name === "parts_mcp.upstream.retries" && metric.points.some((point) => point.value >= 1),
        ),
      );

      // Log lines of the call carry its trace id.
      expect(server.stderr()).toMatch(new RegExp(`"msg":"upstream","trace_id":"${TRACE_ID}"`));
    } finally {
      await server.close();
    }
  });

  it("marks an isError result tool_error and a protocol error with its code", async () => {
    const server = await startServer({ sharedApi: api, env: otlpEnv(receiver) });
    try {
      const traceId = "11111111111111111111111111111111";
      const failed = await server.client.callTool({
        name: "get_part",
        arguments: { id: "no-such-part" },
        _meta: { traceparent: traceparent(traceId, CALLER_SPAN) },
      });
      expect(failed.isError).toBe(true);
      const toolError = await receiver.waitFor(serverSpan(traceId, "tools/call get_part"));
      expect(toolError.attributes["error.type"]).toBe("tool_error");
      expect(toolError.status?.code).toBe(2);

      const unknownTrace = "22222222222222222222222222222222";
      await expect(
        server.client.callTool({
          name: "no_such_tool",
          arguments: {},
          _meta: { traceparent: traceparent(unknownTrace, CALLER_SPAN) },
        }),
      ).rejects.toThrow();
      // A name the server does not serve is recorded as one fixed value, never as sent.
      const protocolError = await receiver.waitFor(serverSpan(unknownTrace, "tools/call _unknown"));
      expect(protocolError.attributes["gen_ai.tool.name"]).toBe("_unknown");
      expect(protocolError.attributes["error.type"]).toBe("-32602");
      expect(protocolError.attributes["rpc.response.status_code"]).toBe("-32602");

      // A reference record read twice: a cache miss, then a hit.
      const reference = { uri: "parts://processes/cnc-milling" };
      await server.client.readResource(reference);
      await server.client.readResource(reference);

      // The metrics arrive too: operation durations by method, tool and error, upstream requests, cache.
      const total = (name: string) =>
        receiver.metrics.filter((metric) => metric.name === name).flatMap((metric) => metric.points).length;
      await receiver.waitFor(() =>
        [
          "mcp.server.operation.duration",
          "http.client.request.duration",
          "parts_mcp.cache.misses",
          "parts_mcp.cache.hits",
        ].every((name) => total(name) > 0)
          ? true
          : undefined,
      );
      const durations = receiver.metrics.filter((metric) => metric.name === "mcp.server.operation.duration");
      expect(durations[0]?.unit).toBe("s");
      const points = durations.flatMap((metric) => metric.points);
      expect(points).toContainEqual(
        expect.objectContaining({
          attributes: expect.objectContaining({
            "mcp.method.name": "tools/call",
            "error.type": "tool_error",
          }),
        }),
      );
    } finally {
      await server.close();
    }
  });

  it("counts the requests stdio holds back while the in-flight limit is reached", async () => {
    // Spawned as mcp.json starts it, with every line written at once: the server reads them in one
    // chunk, so the calls behind initialize wait (with the SDK's client, which writes a line at a
    // time, a busy machine let the server pause stdin first and read the next line only later).
    const entry = mcpJsonEntry();
    const child = spawn(process.execPath, entry.args, {
      cwd: repoRoot,
      env: mcpJsonEnv(api, { ...otlpEnv(receiver), PARTS_MCP_MAX_IN_FLIGHT: "1" }),
      stdio: ["pipe", "pipe", "ignore"],
    });
    let answered = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      answered += chunk.toString().split("\n").length - 1;
    });
    try {
      const call = (id: number) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "get_process", arguments: { code: "lpbf" } },
      });
      const lines = [
        {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        call(1),
        call(2),
      ];
      child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
      await receiver.waitFor(() => (answered >= 3 ? true : undefined));
      await receiver.waitFor(() =>
        receiver.metrics
          .filter((metric) => metric.name === "parts_mcp.calls.shed")
          .flatMap((metric) => metric.points)
          .find(
            (point) => point.attributes["parts_mcp.shed.reason"] === "stdio_backpressure" && point.value >= 2,
          ),
      );
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
});

describe("telemetry over OTLP (HTTP)", () => {
  it("takes the parent from the traceparent header, and from params._meta first with the header linked", async () => {
    const server = await spawnHttpServer({ api, env: otlpEnv(receiver) });
    const headerTrace = "33333333333333333333333333333333";
    const headerSpan = "1111111111111111";
    try {
      const client = await connect(server.url, { traceparent: traceparent(headerTrace, headerSpan) });
      const listed = await client.callTool({ name: "list_parts", arguments: { pageSize: 1 } });
      expect(listed.isError).toBeFalsy();
      const byHeader = await receiver.waitFor(serverSpan(headerTrace, "tools/call list_parts"));
      expect(byHeader.parentSpanId).toBe(headerSpan);
      expect(byHeader.attributes).toMatchObject({
        "network.transport": "tcp",
        "network.protocol.name": "http",
      });

      const metaTrace = "44444444444444444444444444444444";
      await client.callTool({
        name: "list_parts",
        arguments: { pageSize: 1 },
        _meta: { traceparent: traceparent(metaTrace, CALLER_SPAN) },
      });
      const byMeta = await receiver.waitFor(serverSpan(metaTrace, "tools/call list_parts"));
      expect(byMeta.parentSpanId).toBe(CALLER_SPAN);
      expect(byMeta.links).toEqual([{ traceId: headerTrace, spanId: headerSpan }]);
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
