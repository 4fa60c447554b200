// Cancellation through MCP: the SDK Client, given an AbortSignal, sends notifications/cancelled;
// the server aborts the tool's upstream requests, and the API sees their connections close
// (stats.closedEarly). Nothing is retried after a cancel, and the server goes on answering.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import type { EndpointName } from "../../src/embedded/testing";
import { textOf } from "../support/mcp-server";
import { eventually, somePart, startWatchedServer, type WatchedServer } from "./support";

let server: WatchedServer;
let part: Part;

beforeAll(async () => {
  server = await startWatchedServer();
  part = somePart(server.api);
});
afterEach(() => server.api.faults.clear());
afterAll(async () => {
  await server.assertHealthy();
  await server.close();
});

/** Starts a tool call with an AbortSignal; `cancel()` aborts it, `settled` is its outcome. */
function cancellable(target: WatchedServer, name: string, args: Record<string, unknown>) {
  const controller = new AbortController();
  const settled = target.client.callTool({ name, arguments: args }, { signal: controller.signal }).then(
    (result) => ({ result: result as CallToolResult, error: undefined }),
    (error: unknown) => ({ result: undefined, error }),
  );
  return { cancel: () => controller.abort("the user gave up"), settled };
}

const stall = (endpoint: EndpointName) =>
  server.api.faults.add({ endpoint, action: { kind: "latency", ms: 60_000 } });

describe("a cancelled tool call", () => {
  it("closes its upstream request: the API sees the connection close early", async () => {
    stall("getPart");
    const requests = server.api.stats.requests("getPart");
    const closed = server.api.stats.closedEarly("getPart");
    const call = cancellable(server, "get_part", { id: part.id });
    expect(await eventually(() => server.api.stats.requests("getPart") > requests)).toBe(true);

    call.cancel();
    const { error } = await call.settled;
    expect(String(error)).toMatch(/the user gave up|abort/i);
    // The server process aborts its request, then the API sees the close: generous on a busy machine.
    expect(await eventually(() => server.api.stats.closedEarly("getPart") > closed, 15_000)).toBe(true);
    expect(server.api.stats.closedEarly("getPart") - closed).toBe(1);
    expect(server.api.stats.requests("getPart") - requests).toBe(1); // not retried
  });

  it("closes every request of a tool that fans out (describe_part's lookups)", async () => {
    const lookups: EndpointName[] = ["getProcess", "getMaterial", "batchGetStandards"];
    for (const endpoint of lookups) stall(endpoint);
    const closed = server.api.stats.closedEarly();
    const requests = server.api.stats.requests();
    const call = cancellable(server, "describe_part", { id: part.id });
    // The part, then its process, material and standards lookups in flight.
    expect(await eventually(() => server.api.stats.requests() - requests >= 4)).toBe(true);
    call.cancel();
    await call.settled;
    expect(await eventually(() => server.api.stats.closedEarly() - closed >= 3, 15_000)).toBe(true);
    for (const endpoint of lookups) expect(server.api.stats.closedEarly(endpoint)).toBeGreaterThan(0);
  });

  it("ends a wait for a retry: no request is made after the cancel", async () => {
    server.api.faults.add({
      endpoint: "getFactory",
      action: { kind: "status", status: 429, retryAfter: "1" },
      times: 1,
    });
    const factory = server.api.store.factories()[0]?.id;
    const requests = server.api.stats.requests("getFactory");
    const call = cancellable(server, "get_factory", { id: factory });
    expect(await eventually(() => server.api.stats.requests("getFactory") > requests)).toBe(true);
    call.cancel();
    await call.settled;
    // The retry would have gone out 1 s after the 429; wait past it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(server.api.stats.requests("getFactory") - requests).toBe(1);
  });

  it("leaves the server answering, and other calls in flight unharmed", async () => {
    server.api.faults.add({ endpoint: "getPart", action: { kind: "latency", ms: 300 } });
    const kept = server.call("get_part", { id: part.id });
    const dropped = cancellable(server, "get_part", { id: part.id });
    await eventually(() => server.api.stats.requests("getPart") >= 2);
    dropped.cancel();
    const result = await kept;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual(part);
    await server.assertHealthy();
  });
});

// Found here: with the reference cache on, concurrent lookups of the same record share one
// upstream request, made with the first caller's signal; cancelling the first caller used to fail
// the others with "cancelled".
describe("with the reference cache on", () => {
  let cached: WatchedServer;
  beforeAll(async () => {
    cached = await startWatchedServer({ env: { PARTS_MCP_CACHE_TTL_MS: "300000" } });
  });
  afterAll(async () => {
    await cached?.close();
  });

  it("cancelling one caller of a shared lookup does not fail the other", async () => {
    const code = cached.api.store.standards()[0]?.code;
    cached.api.faults.add({ endpoint: "getStandard", action: { kind: "latency", ms: 500 }, times: 1 });
    const first = cancellable(cached, "get_standard", { code });
    await eventually(() => cached.api.stats.requests("getStandard") >= 1);
    const second = cached.call("get_standard", { code });
    await new Promise((resolve) => setTimeout(resolve, 50));
    first.cancel();
    const result = await second;
    expect(result.isError, textOf(result)).toBeFalsy();
  });
});
