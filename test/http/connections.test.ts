// Connections under floods, through `parts-mcp --http` as an operator runs it: no connection is
// closed without an answer (past the cap a silent one is told 503 with Retry-After, not reset),
// idle connections give way to real calls, and a trickled request is cut within a second of the
// request time-out, not when Node next happens to look.
import { connect as connectSocket, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, connect, MCP_HEADERS, ok, raw, spawnHttpServer, toolCall } from "./support";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Everything the server sent on `socket` until it closed, and when (ms after `started`). */
function readUntilClosed(socket: Socket, started = Date.now()): Promise<{ data: string; afterMs: number }> {
  return new Promise((resolve) => {
    let data = "";
    socket.on("data", (chunk: Buffer) => {
      data += chunk.toString();
    });
    socket.on("error", () => {});
    socket.once("close", () => resolve({ data, afterMs: Date.now() - started }));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("request time-outs hold within a second", () => {
  it("cuts a body trickled one byte at a time at the time-out, whenever the request started", async () => {
    const server = await spawnHttpServer({
      api,
      env: { PARTS_MCP_HTTP_REQUEST_TIMEOUT_MS: "2000", PARTS_MCP_HTTP_HEADERS_TIMEOUT_MS: "2000" },
    });
    const { host } = new URL(server.url);
    try {
      // Four requests a quarter of a second apart: whatever the phase of Node's periodic check,
      // each must be cut within half a second of its own time-out.
      const cuts = await Promise.all(
        [0, 250, 500, 750].map(async (delay) => {
          await sleep(delay);
          const socket = await openSocket(server.url);
          const started = Date.now();
          const closed = readUntilClosed(socket, started);
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
          );
          const drip = setInterval(() => socket.writable && socket.write(" "), 600);
          const result = await closed;
          clearInterval(drip);
          return result;
        }),
      );
      for (const { data, afterMs } of cuts) {
        expect(data).toMatch(/^HTTP\/1\.1 408/);
        expect(afterMs).toBeGreaterThanOrEqual(1_950);
        expect(afterMs).toBeLessThan(2_500);
      }
    } finally {
      await server.stop();
    }
  });
});

describe("the connection cap answers, and idle connections give way", () => {
  it("a connection past the cap that is slow to send its request gets 503, never a bare close", async () => {
    api.faults.add({ endpoint: "getProcess", action: { kind: "latency", ms: 2_500 } });
    const server = await spawnHttpServer({
      api,
      env: { PARTS_MCP_HTTP_MAX_CONNECTIONS: "2", PARTS_MCP_CACHE_TTL_MS: "0" },
    });
    try {
      // Two calls in progress hold the cap: neither is idle, so neither gives way.
      const holders = [1, 2].map((id) =>
        raw(server.url, { headers: MCP_HEADERS, body: toolCall("get_process", { code: "sls" }, id) }),
      );
      await sleep(300);
      // One that sends at once is answered 503 by the handler, naming the setting.
      const prompt = await raw(server.url, {
        headers: MCP_HEADERS,
        body: toolCall("get_process", { code: "sls" }, 3),
      });
      expect(prompt.status).toBe(503);
      expect(prompt.headers["retry-after"]).toBe("1");
      expect(JSON.parse(prompt.body).error.message).toMatch(
        /too many open connections.*PARTS_MCP_HTTP_MAX_CONNECTIONS/,
      );
      const late = await Promise.all([0, 1, 2].map(() => openSocket(server.url)));
      const answers = late.map((socket) => readUntilClosed(socket));
      await sleep(1_500);
      const { host } = new URL(server.url);
      const body = toolCall("get_process", { code: "sls" }, 9);
      for (const socket of late) {
        if (socket.writable) {
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
        }
      }
      for (const { data } of await Promise.all(answers)) {
        expect(data).toMatch(/^HTTP\/1\.1 503/);
        expect(data).toMatch(/Retry-After: 1/i);
        expect(data).toMatch(/too many open connections/);
      }
      for (const res of await Promise.all(holders)) expect(res.status).toBe(200);
    } finally {
      api.faults.clear();
      await server.stop();
    }
  });

  it("idle connections holding the cap give way to a real client's calls", async () => {
    const server = await spawnHttpServer({ api, env: { PARTS_MCP_HTTP_MAX_CONNECTIONS: "6" } });
    const { host } = new URL(server.url);
    try {
      // Four connections that never send anything, two kept alive after a request: all idle.
      const silent = await Promise.all([0, 1, 2, 3].map(() => openSocket(server.url)));
      const silentAnswers = silent.map((socket) => readUntilClosed(socket));
      const kept = await Promise.all([0, 1].map(() => openSocket(server.url)));
      for (const socket of kept) {
        socket.on("error", () => {});
        socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
      }
      await sleep(1_300);
      const client = await connect(server.url);
      try {
        for (let i = 0; i < 3; i++) {
          expect(ok(await call(client, "get_process", { code: "sls" })).code).toBe("sls");
        }
      } finally {
        await client.close();
      }
      // The silent ones that gave way were told why before the close.
      const closed = await Promise.race([
        Promise.all(silentAnswers.slice(0, 1)),
        sleep(3_000).then(() => undefined),
      ]);
      expect(closed?.[0]?.data).toMatch(/^HTTP\/1\.1 503/);
      for (const socket of [...silent, ...kept]) socket.destroy();
    } finally {
      await server.stop();
    }
  });

  it("with 1,000 idle sockets open at the default cap, a real client's calls succeed", async () => {
    const server = await spawnHttpServer({ api });
    try {
      const idle = await Promise.all(Array.from({ length: 1_000 }, () => openSocket(server.url)));
      const answers = idle.map((socket) => readUntilClosed(socket));
      await sleep(1_300);
      const client = await connect(server.url);
      try {
        expect(ok(await call(client, "get_process", { code: "sls" })).code).toBe("sls");
        expect(ok(await call(client, "get_material", { code: "ti64" })).code).toBe("ti64");
      } finally {
        await client.close();
      }
      for (const socket of idle) socket.end();
      // Every one the server closed itself was answered first: past the cap, or giving way.
      const closedByServer = (await Promise.all(answers)).filter(({ data }) => data !== "");
      expect(closedByServer.length).toBeGreaterThanOrEqual(488);
      for (const { data } of closedByServer) expect(data).toMatch(/^HTTP\/1\.1 503/);
    } finally {
      await server.stop();
    }
  }, 30_000);

  it("2,000 calls at once on 2,000 connections: every one answered, none reset", async () => {
    const server = await spawnHttpServer({ api });
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 2_000 }, (_, i) =>
          raw(server.url, { headers: MCP_HEADERS, body: toolCall("get_process", { code: "sls" }, i + 1) }),
        ),
      );
      const failed = outcomes.flatMap((outcome) =>
        outcome.status === "rejected" ? [String(outcome.reason)] : [],
      );
      const statuses: Record<number, number> = {};
      for (const outcome of outcomes) {
        if (outcome.status === "fulfilled")
          statuses[outcome.value.status] = (statuses[outcome.value.status] ?? 0) + 1;
      }
      console.log("flood of 2,000:", JSON.stringify(statuses));
      expect(failed.slice(0, 3), JSON.stringify(statuses)).toEqual([]);
      // Served, or told to come back: busy (in-flight limit) or crowded (connection cap).
      expect(Object.keys(statuses).filter((status) => !["200", "503", "408"].includes(status))).toEqual([]);
      expect(statuses[200]).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
