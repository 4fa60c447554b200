// Starting and stopping `parts-mcp --http`: what it refuses to start with, and a graceful
// shutdown on SIGTERM (the listener closes at once, calls in flight finish, the process exits 0).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, connect, MCP_HEADERS, ok, raw, spawnHttpServer, spawnRefused, toolCall } from "./support";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

describe("start-up refusals", () => {
  it("refuses to serve a non-loopback address without access control, naming the settings", async () => {
    const { code, stderr } = await spawnRefused({
      api,
      args: ["--http", "--host", "0.0.0.0", "--port", "0"],
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/--host is 0\.0\.0\.0, not a loopback address/);
    expect(stderr).toMatch(/PARTS_MCP_ACCESS_KEYS/);
    expect(stderr).toMatch(/PARTS_MCP_AUTH=per-user/);
    expect(stderr).not.toMatch(/ready on/);
  });

  it("refuses every interface without PARTS_MCP_ALLOWED_HOSTS, even with access control", async () => {
    const { code, stderr } = await spawnRefused({
      api,
      args: ["--http", "--port", "0"],
      env: { PARTS_MCP_HTTP_HOST: "0.0.0.0", PARTS_MCP_ACCESS_KEYS: "pmk_test_0123456789abcdef" },
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/PARTS_MCP_ALLOWED_HOSTS/);
    expect(stderr).not.toContain("pmk_test_0123456789abcdef");
  });

  it("refuses PARTS_MCP_AUTH=shared without keys, and keys that are too short", async () => {
    const noKeys = await spawnRefused({ api, args: ["--http"], env: { PARTS_MCP_AUTH: "shared" } });
    expect(noKeys.code).toBe(2);
    expect(noKeys.stderr).toMatch(/PARTS_MCP_ACCESS_KEYS is not set/);
    const short = await spawnRefused({ api, args: ["--http"], env: { PARTS_MCP_ACCESS_KEYS: "abc" } });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/shorter than 16/);
    expect(short.stderr).not.toContain('"abc"');
  });

  it("says when the port is taken", async () => {
    const first = await spawnHttpServer({ api });
    try {
      const port = new URL(first.url).port;
      const { code, stderr } = await spawnRefused({ api, args: ["--http", "--port", port] });
      expect(code).toBe(2);
      expect(stderr).toMatch(new RegExp(`port ${port} is already in use.*--port`));
    } finally {
      await first.stop();
    }
  });

  it("refuses HTTP-only flags without --http, and unknown flags", async () => {
    const port = await spawnRefused({ api, args: ["--port", "8080"] });
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port applies to HTTP serving only: add --http/);
    const unknown = await spawnRefused({ api, args: ["--htttp"] });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown argument "--htttp"/);
  });
});

describe("SIGTERM", () => {
  it("stops listening at once, lets calls in flight finish, and exits 0", async () => {
    const server = await spawnHttpServer({ api });
    const part = api.store.sampleParts()[0] as Part;
    const client = await connect(server.url);
    try {
      api.faults.add({ endpoint: "getPart", action: { kind: "latency", ms: 1_500 }, times: 1 });
      const before = api.stats.requests("getPart");
      const inFlight = call(client, "get_part", { id: part.id });
      while (api.stats.requests("getPart") === before) await new Promise((r) => setTimeout(r, 10));

      server.child.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 200));
      expect(server.child.exitCode).toBeNull();

      // A new request finds no listener: a balancer may pass it to another replica, since
      // nothing was sent; it is never answered with an error it must not repeat.
      await expect(
        raw(server.url, { headers: MCP_HEADERS, body: toolCall("get_process", { code: "lpbf" }) }),
      ).rejects.toThrow(/ECONNREFUSED/);
      await expect(raw(server.url.replace("/mcp", "/healthz"), { method: "GET" })).rejects.toThrow(
        /ECONNREFUSED/,
      );

      const result = ok<Part>(await inFlight);
      expect(result.id).toBe(part.id);
      expect(await server.exited).toBe(0);
      expect(server.stderr()).toMatch(/stopping/);
    } finally {
      api.faults.clear();
      await client.close().catch(() => {});
      await server.stop();
    }
  });

  it("exits 0 at once when nothing is in flight", async () => {
    const server = await spawnHttpServer({ api });
    const started = Date.now();
    expect(await server.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
