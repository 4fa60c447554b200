// A hostile or broken upstream (issue 13, item 13), seen from the client: a compressed body it
// did not ask for, too many headers, an absurd Retry-After, control characters in its texts. Each
// is a clear fact, not retried when repeating cannot help; test/errors/words.test.ts checks the
// words built from these facts.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolErrorMessage } from "../../src/mcp/messages";
import { type Api, failure, makeClient, startApi } from "./harness";

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const stdio = { mode: "stdio", notFound: "Use list_parts.", idempotent: true, timeoutMs: 30_000 } as const;

/** An HTTP server that answers every request with `answer`, counting requests. */
async function serve(answer: (res: import("node:http").ServerResponse) => void) {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    answer(res);
  });
  const url = await listen(server);
  return { url, requests: () => requests, close: () => close(server) };
}

/** A TCP server that writes `bytes` as its answer to whatever arrives, counting connections. */
async function rawServe(bytes: string) {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    socket.on("error", () => {});
    socket.once("data", () => socket.end(Buffer.from(bytes, "latin1")));
  });
  const url = await listen(server);
  return { url, connections: () => connections, close: () => close(server) };
}

describe("a body in an encoding the client did not ask for", () => {
  const part = JSON.stringify({ id: "p1" });

  it("a gzip body with Content-Encoding: gzip names the encoding, not 'not valid JSON'", async () => {
    const upstream = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(part));
    });
    const c = makeClient(api, { baseUrl: upstream.url });
    const error = await failure(c.call("getPart", { params: { id: "p1" } }));
    expect(error).toMatchObject({ kind: "contract", status: 200, attempts: 1 });
    expect(error.detail).toBe(
      "HTTP 200 with a body encoded as gzip (Content-Encoding), which was not asked for",
    );
    expect(toolErrorMessage(error, stdio)).toMatch(/gzip/);
    expect(toolErrorMessage(error, stdio)).not.toMatch(/not valid JSON/);
    await c.close();
    await upstream.close();
  });

  it("gzip data without the header is recognised by its magic bytes", async () => {
    const upstream = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(gzipSync(part));
    });
    const c = makeClient(api, { baseUrl: upstream.url });
    const error = await failure(c.call("getPart", { params: { id: "p1" } }));
    expect(error.detail).toBe("HTTP 200 with gzip-compressed data and no Content-Encoding header");
    await c.close();
    await upstream.close();
  });

  it("an error status with a br body names the encoding too", async () => {
    const upstream = await serve((res) => {
      res.writeHead(503, { "content-type": "application/json", "content-encoding": "br" });
      res.end(Buffer.from([0x1b, 0x2c, 0x00]));
    });
    const c = makeClient(api, { baseUrl: upstream.url, maxRetries: 0 });
    const error = await failure(c.call("getPart", { params: { id: "p1" } }));
    expect(error).toMatchObject({ kind: "http", status: 503 });
    expect(error.detail).toBe(
      "HTTP 503 with a body encoded as br (Content-Encoding), which was not asked for",
    );
    await c.close();
    await upstream.close();
  });
});

describe("an answer that is not valid HTTP", () => {
  it("too many response headers: a malformed response, not retried, never 'could not reach'", async () => {
    const headers = Array.from({ length: 3_000 }, (_, i) => `x-h${i}: v`).join("\r\n");
    const upstream = await rawServe(`HTTP/1.1 200 OK\r\n${headers}\r\ncontent-length: 2\r\n\r\n{}`);
    const c = makeClient(api, { baseUrl: upstream.url, maxRetries: 3 });
    const error = await failure(c.call("getPart", { params: { id: "p1" } }));
    expect(error).toMatchObject({ kind: "contract", attempts: 1, sent: true });
    expect(error.detail).toBe("a response whose headers are too many or too large (over 16 KiB)");
    expect(upstream.connections()).toBe(1);
    const words = toolErrorMessage(error, stdio);
    expect(words).not.toMatch(/could not reach/i);
    expect(words).toMatch(/does not match its specification: a response whose headers are too many/);
    await c.close();
    await upstream.close();
  });

  it("a garbled status line: a malformed response, not retried", async () => {
    const upstream = await rawServe("HTTX/1.1 2OO OK\r\n\r\n");
    const c = makeClient(api, { baseUrl: upstream.url, maxRetries: 3 });
    const error = await failure(c.call("getPart", { params: { id: "p1" } }));
    expect(error).toMatchObject({ kind: "contract", attempts: 1 });
    expect(error.detail).toMatch(/^a response that is not valid HTTP\/1\.1/);
    expect(upstream.connections()).toBe(1);
    await c.close();
    await upstream.close();
  });
});

describe("Retry-After that asks for too much", () => {
  it.each([
    ["a 20-digit number", "99999999999999999999"],
    ["a date far ahead", "Fri, 01 Jan 2100 00:00:00 GMT"],
  ])("%s is capped at a day and said as 'more than an hour'", async (_, retryAfter) => {
    api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 429, retryAfter }, times: 1 });
    const c = makeClient(api);
    const start = Date.now();
    const error = await failure(c.call("getPart", { params: { id: "p1" } }));
    expect(Date.now() - start).toBeLessThan(1_500); // returned at once, not after the wait
    expect(error).toMatchObject({ kind: "http", status: 429, retryAfterSeconds: 86_400, attempts: 1 });
    expect(toolErrorMessage(error, stdio)).toMatch(/rate limiting.*Try again in more than an hour\./);
    api.faults.clear();
    await c.close();
  });

  it("a 503 with Retry-After says when, not 'shortly'", async () => {
    api.faults.add({
      endpoint: "getPart",
      action: { kind: "status", status: 503, retryAfter: "120" },
      times: 1,
    });
    const c = makeClient(api, { timeoutMs: 2_000 });
    const error = await failure(c.call("getPart", { params: { id: "p1" } }));
    expect(error).toMatchObject({ status: 503, retryAfterSeconds: 120 });
    const words = toolErrorMessage(error, stdio);
    expect(words).toMatch(/try again in 120 s\./);
    expect(words).not.toMatch(/shortly/);
    api.faults.clear();
    await c.close();
  });
});

describe("control and bidi characters in the upstream's texts", () => {
  it("are escaped in the error's facts and in the words", async () => {
    api.faults.add({
      endpoint: "getPart",
      action: {
        kind: "status",
        status: 400,
        message: "bad\u001b[2J\u0007 id \u202egnp.exe\u202c \u2066x\u2069",
        code: "BAD\u001b[31m",
      },
      times: 1,
    });
    const c = makeClient(api);
    const error = await failure(c.call("getPart", { params: { id: "p1" } }));
    expect(error.upstreamMessage).toBe("bad\\u001B[2J\\u0007 id \\u202Egnp.exe\\u202C \\u2066x\\u2069");
    expect(error.code).toBe("BAD\\u001B[31m");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    const invisible = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    expect(error.message).not.toMatch(invisible);
    expect(toolErrorMessage(error, stdio)).not.toMatch(invisible);
    api.faults.clear();
    await c.close();
  });
});

describe("an answer that quotes the token", () => {
  it.each([
    ["raw", (token: string) => token],
    ["percent-encoded", (token: string) => encodeURIComponent(`${token}/`)],
    ["in base64", (token: string) => Buffer.from(token).toString("base64")],
  ])("%s: redacted from the result", async (_, form) => {
    const upstream = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "X 1", name: `issued to ${form(api.demoToken)}` }));
    });
    const c = makeClient(api, { baseUrl: upstream.url });
    const standard = await c.call("getStandard", { params: { code: "X 1" } });
    expect(standard.code).toBe("X 1");
    expect(standard.name).toMatch(/^issued to \[REDACTED\]/);
    await c.close();
    await upstream.close();
  });
});

function listen(server: Server | TcpServer): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

function close(server: Server | TcpServer): Promise<void> {
  if ("closeAllConnections" in server) server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
