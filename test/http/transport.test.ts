// The HTTP surface of `parts-mcp --http` on loopback without access control: stateless
// Streamable HTTP at /mcp, /healthz, DNS-rebinding protection, the body limit and the refusals
// a client can act on.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { tools } from "../../tools";
import {
  call,
  connect,
  type HttpServerProcess,
  initializeBody,
  MCP_HEADERS,
  ok,
  raw,
  rpcBody,
  spawnHttpServer,
  toolCall,
} from "./support";

let api: TestApi;
let server: HttpServerProcess;
let port: string;

beforeAll(async () => {
  api = await startTestApi();
  server = await spawnHttpServer({ api, args: ["--allowed-origins", "https://chat.example.com"] });
  port = new URL(server.url).port;
});

afterAll(async () => {
  await server?.stop();
  await api?.close();
});

describe("parts-mcp --http", () => {
  it("listens on 127.0.0.1 by default and says where on stderr", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.stderr()).toMatch(/ready on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(server.stderr()).toMatch(/"access":"none"/);
    expect(server.stderr()).not.toContain(api.demoToken);
  });

  it("answers /healthz", async () => {
    const res = await raw(server.url.replace("/mcp", "/healthz"), { method: "GET" });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: "ok" });
  });

  it("serves an SDK client of either era statelessly, with no session id", async () => {
    for (const era of ["2025", "2026"] as const) {
      const client = await connect(server.url, {}, era);
      try {
        expect(client.getProtocolEra()).toBe(era === "2026" ? "modern" : "legacy");
        expect((await client.listTools()).tools).toHaveLength(tools.length);
        expect(ok(await call(client, "get_process", { code: "lpbf" })).code).toBe("lpbf");
      } finally {
        await client.close();
      }
    }
    const res = await raw(server.url, { headers: MCP_HEADERS, body: initializeBody });
    expect(res.status).toBe(200);
    expect(rpcBody(res).result.serverInfo.name).toBe("parts-mcp");
    expect(res.headers["mcp-session-id"]).toBeUndefined();
  });

  it("answers any request on its own, without an initialize before it (any replica can)", async () => {
    const res = await raw(server.url, {
      headers: MCP_HEADERS,
      body: toolCall("get_process", { code: "cnc-turning" }, 7),
    });
    expect(res.status).toBe(200);
    const body = rpcBody(res);
    expect(body.id).toBe(7);
    expect(body.result.structuredContent.code).toBe("cnc-turning");
  });

  it("accepts logging/setLevel (it sends no log notifications at any level)", async () => {
    const client = await connect(server.url);
    try {
      await expect(client.setLoggingLevel("warning")).resolves.toEqual({});
    } finally {
      await client.close();
    }
  });

  it("refuses GET and DELETE with 405: there is no session or stream", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await raw(server.url, { method, headers: { accept: "text/event-stream" } });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toMatch(/POST/);
    }
  });

  it("refuses a body that is not JSON: 415 for another content type, 400 for bad JSON", async () => {
    const text = await raw(server.url, {
      headers: { ...MCP_HEADERS, "content-type": "text/plain" },
      body: "{}",
    });
    expect(text.status).toBe(415);
    const bad = await raw(server.url, { headers: MCP_HEADERS, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(rpcBody(bad).error.code).toBe(-32700);
  });

  it("answers 404 outside /mcp and /healthz", async () => {
    expect((await raw(server.url.replace("/mcp", "/other"), { method: "GET" })).status).toBe(404);
  });
});

describe("DNS-rebinding protection", () => {
  it("refuses a Host that is not this server's: 403", async () => {
    for (const host of [
      "evil.example.com",
      `evil.example.com:${port}`,
      `127.0.0.1.evil.example.com:${port}`,
    ]) {
      const res = await raw(server.url, { headers: { ...MCP_HEADERS, host }, body: initializeBody });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body).error.message).toMatch(/Host/);
    }
  });

  it("accepts the loopback names in Host", async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `LOCALHOST:${port}`]) {
      const res = await raw(server.url, { headers: { ...MCP_HEADERS, host }, body: initializeBody });
      expect(res.status, host).toBe(200);
    }
  });

  it("refuses an Origin of another site: 403", async () => {
    for (const origin of ["https://evil.example.com", `http://evil.example.com:${port}`, "null"]) {
      const res = await raw(server.url, { headers: { ...MCP_HEADERS, origin }, body: initializeBody });
      expect(res.status, origin).toBe(403);
      expect(JSON.parse(res.body).error.message).toMatch(/Origin/);
    }
  });

  it("accepts a loopback Origin and one listed in PARTS_MCP_ALLOWED_ORIGINS, with CORS headers", async () => {
    for (const origin of [`http://localhost:${port}`, "https://chat.example.com"]) {
      const res = await raw(server.url, { headers: { ...MCP_HEADERS, origin }, body: initializeBody });
      expect(res.status, origin).toBe(200);
      expect(res.headers["access-control-allow-origin"]).toBe(origin);
    }
    const preflight = await raw(server.url, {
      method: "OPTIONS",
      headers: { origin: "https://chat.example.com", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/Mcp-Protocol-Version/);
    const evil = await raw(server.url, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example.com" },
    });
    expect(evil.status).toBe(403);
  });
});

describe("the request body limit (1 MiB by default)", () => {
  it("refuses a larger body with 413, without calling the API", async () => {
    const before = api.stats.requests();
    const body = toolCall("get_process", { code: "x".repeat(1024 * 1024 + 1) });
    const res = await raw(server.url, { headers: MCP_HEADERS, body });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.message).toMatch(
      /larger than 1048576 bytes \(PARTS_MCP_MAX_MESSAGE_BYTES\)/,
    );
    expect(api.stats.requests()).toBe(before);
  });

  it("refuses a chunked body (no Content-Length) once it passes the limit", async () => {
    const res = await raw(server.url, {
      headers: { ...MCP_HEADERS, "transfer-encoding": "chunked" },
      body: toolCall("get_process", { code: "y".repeat(2 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
  });

  it("takes a body just under the limit", async () => {
    const body = toolCall("get_process", { code: "z".repeat(1024 * 1024 - 200) });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024 * 1024);
    const res = await raw(server.url, { headers: MCP_HEADERS, body });
    expect(res.status).toBe(200);
    expect(rpcBody(res).result.isError).toBe(true);
  });
});
