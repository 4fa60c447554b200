// `parts-mcp --http` under careless and hostile clients: idle and slow sockets are let go, a
// connection flood is capped (and said so in the log), a flood of calls past the in-flight limit
// is answered "busy, retry" instead of queueing without bound, and a client trickling a body
// does not hold the shutdown.
import { connect as connectSocket, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { MCP_HEADERS, raw, rpcBody, spawnHttpServer, toolCall } from "./support";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

const endpoint = (url: string) => new URL(url);

function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = endpoint(url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Resolves with the time until the server closed the socket. */
function closedWithin(socket: Socket, limitMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still open after ${limitMs} ms`)), limitMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
    socket.on("error", () => {});
    socket.resume();
  });
}

describe("slow and idle clients", () => {
  it("closes an idle keep-alive connection after the idle time-out", async () => {
    const server = await spawnHttpServer({ api, env: { PARTS_MCP_HTTP_IDLE_TIMEOUT_MS: "1000" } });
    try {
      const socket = await openSocket(server.url);
      const { host } = endpoint(server.url);
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
      expect(await closedWithin(socket, 5_000)).toBeLessThan(4_000);
    } finally {
      await server.stop();
    }
  });

  it("closes a connection whose body trickles past the request time-out", async () => {
    const server = await spawnHttpServer({
      api,
      env: { PARTS_MCP_HTTP_REQUEST_TIMEOUT_MS: "1500", PARTS_MCP_HTTP_HEADERS_TIMEOUT_MS: "1000" },
    });
    try {
      const socket = await openSocket(server.url);
      const { host } = endpoint(server.url);
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{`,
      );
      const drip = setInterval(() => socket.writable && socket.write(" "), 300);
      try {
        expect(await closedWithin(socket, 8_000)).toBeLessThan(6_000);
      } finally {
        clearInterval(drip);
      }
    } finally {
      await server.stop();
    }
  });

  it("caps open connections: past the cap a silent socket is answered 503 and closed, idle ones give way; one log line", async () => {
    const server = await spawnHttpServer({ api, env: { PARTS_MCP_HTTP_MAX_CONNECTIONS: "4" } });
    try {
      const sockets = await Promise.all(Array.from({ length: 8 }, () => openSocket(server.url)));
      const closed = sockets.map((socket) =>
        closedWithin(socket, 3_000).then(
          () => true,
          () => false,
        ),
      );
      const dropped = (await Promise.all(closed.slice(4))).filter(Boolean).length;
      expect(dropped).toBe(4);
      expect(server.stderr().match(/connection limit reached/g)).toHaveLength(1);
      // The four left have been idle for a second: a real request takes the place of one of them.
      const served = await raw(server.url, {
        headers: MCP_HEADERS,
        body: toolCall("get_process", { code: "sls" }),
      });
      expect(served.status).toBe(200);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const health = await raw(server.url.replace("/mcp", "/healthz"), { method: "GET" });
      expect(health.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("does not let a client trickling a body hold the shutdown", async () => {
    const server = await spawnHttpServer({ api });
    const socket = await openSocket(server.url);
    const { host } = endpoint(server.url);
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{`,
    );
    socket.on("error", () => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    expect(await server.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.stderr()).not.toMatch(/abandoned/);
    socket.destroy();
  });
});

describe("a flood of calls", () => {
  it("answers every call: served, or 503 busy with Retry-After past the in-flight limit", async () => {
    api.faults.add({ endpoint: "getProcess", action: { kind: "latency", ms: 200 } });
    const server = await spawnHttpServer({
      api,
      env: { PARTS_MCP_MAX_IN_FLIGHT: "20", PARTS_MCP_CACHE_TTL_MS: "0" },
    });
    try {
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          raw(server.url, { headers: MCP_HEADERS, body: toolCall("get_process", { code: "sls" }, i + 1) }),
        ),
      );
      const served = responses.filter((res) => res.status === 200);
      const busy = responses.filter((res) => res.status === 503);
      expect(served.length + busy.length).toBe(200);
      expect(served.length).toBeGreaterThanOrEqual(20);
      expect(busy.length).toBeGreaterThan(0);
      for (const res of served) expect(rpcBody(res).result.structuredContent.code).toBe("sls");
      for (const res of busy) {
        expect(res.headers["retry-after"]).toBe("1");
        expect(JSON.parse(res.body).error.message).toMatch(/busy.*again/);
      }
    } finally {
      api.faults.clear();
      await server.stop();
    }
  });
});

describe("messages the SDK would answer badly", () => {
  it("refuses a __proto__ tool argument as a tool result, and names a prompt argument or a parameter of the wrong type", async () => {
    const server = await spawnHttpServer({ api });
    try {
      const proto = await raw(server.url, {
        headers: MCP_HEADERS,
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_process","arguments":{"code":"sls","__proto__":{"polluted":true}}}}',
      });
      expect(proto.status).toBe(200);
      expect(JSON.parse(proto.body)).toMatchObject({
        id: 1,
        result: {
          isError: true,
          content: [{ text: expect.stringMatching(/Unrecognized key: "__proto__"/) }],
        },
      });
      const prompt = await raw(server.url, {
        headers: MCP_HEADERS,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "prompts/get",
          params: { name: "rfq_status", arguments: { rfqId: 5 } },
        }),
      });
      expect(JSON.parse(prompt.body)).toMatchObject({
        id: 2,
        error: { code: -32602, message: expect.stringMatching(/arguments\.rfqId must be a string/) },
      });
      // Parameters of the wrong type: Invalid Params naming the field, not a schema dump (or, for a
      // read without a uri, the SDK's -32603 internal error).
      const wrongTypes = [
        { method: "resources/read", params: {}, says: /^Invalid params: uri must be a string/ },
        {
          method: "tools/call",
          params: { name: "get_part", arguments: "x" },
          says: /arguments must be an object/,
        },
        {
          method: "tools/call",
          params: { name: "get_part", arguments: [1] },
          says: /arguments must be an object/,
        },
        { method: "tools/call", params: { name: 5 }, says: /name must be a string/ },
      ];
      for (const [i, { method, params, says }] of wrongTypes.entries()) {
        const res = await raw(server.url, {
          headers: MCP_HEADERS,
          body: JSON.stringify({ jsonrpc: "2.0", id: 10 + i, method, params }),
        });
        const answer = JSON.parse(res.body);
        expect(answer, method).toMatchObject({ id: 10 + i, error: { code: -32602 } });
        expect(answer.error.message).toMatch(says);
        expect(answer.error.message).not.toContain("invalid_type");
      }
    } finally {
      await server.stop();
    }
  });
});
