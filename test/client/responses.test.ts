// What the client makes of every kind of answer: malformed bodies, oversized bodies, redirects,
// contract violations, tolerated extra fields. The client's errors are facts (kind, status,
// detail, issues); the words built from them are tested in test/errors/words.test.ts.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Part } from "../../src/api/schemas";
import type { PartsApiClient } from "../../src/client";
import type { MalformedVariant } from "../../src/embedded/testing";
import { type Api, eventually, failure, logLines, makeClient, startApi } from "./harness";

let api: Api;
let client: PartsApiClient;
let partId: string;

beforeAll(async () => {
  api = await startApi();
  client = makeClient(api, { maxRetries: 0, maxResponseBytes: 64 * 1024 });
  const first = await client.call("listParts", { query: { pageSize: 1 } });
  partId = first.items[0]!.id;
});
afterEach(() => {
  api.faults.clear();
  api.stats.reset();
});
afterAll(async () => {
  await client.close();
  await api.close();
  for (const line of logLines) expect(line).not.toContain(api.demoToken);
});

function malformed(variant: MalformedVariant, c: PartsApiClient = client) {
  api.faults.add({ endpoint: "getPart", action: { kind: "malformed", variant }, times: 1 });
  return c.call("getPart", { params: { id: partId } });
}

describe("malformed answers give a clear error", () => {
  it("an HTML page", async () => {
    const error = await failure(malformed("html"));
    expect(error).toMatchObject({
      kind: "http",
      status: 502,
      detail: "HTTP 502 with an HTML page instead of the API's JSON error",
    });
    expect(error.message).not.toMatch(/<html|<body/i);
  });

  it("truncated JSON", async () => {
    const error = await failure(malformed("truncated-json"));
    expect(error).toMatchObject({ kind: "contract", status: 200, sent: true });
    expect(error.detail).toBe("HTTP 200 with a body that is not valid JSON (truncated or garbled)");
  });

  it("a wrong content type", async () => {
    const error = await failure(malformed("wrong-content-type"));
    expect(error).toMatchObject({ kind: "contract", status: 200 });
    expect(error.detail).toBe("HTTP 200 with content-type text/plain instead of application/json");
  });

  it("an empty body", async () => {
    const error = await failure(malformed("empty"));
    expect(error).toMatchObject({
      kind: "contract",
      status: 200,
      detail: "HTTP 200 with an empty body instead of JSON",
    });
  });

  it("the error shape sent with 200 is an error, not a record", async () => {
    const error = await failure(malformed("error-shape-200"));
    expect(error).toMatchObject({
      kind: "http",
      status: 500,
      code: "internal",
      upstreamMessage: "internal error while reading the part store",
    });
    expect(error.message).toContain("HTTP 200");
  });

  it("a body over maxResponseBytes is refused without reading it whole", async () => {
    const start = Date.now();
    const error = await failure(malformed("oversized"));
    expect(error).toMatchObject({ kind: "too_large", attempts: 1, sent: true });
    expect(error.detail).toMatch(
      /^the response \(\d+ bytes or more\) is larger than the limit of 65536 bytes$/,
    );
    expect(Date.now() - start).toBeLessThan(3_000);
  });

  // The embedded API's oversized answer is 16.5 MiB: loopback socket buffers (tcp_rmem grows to
  // 32 MiB here) can take in all of it before the client's reset arrives, so whether the API sees
  // its response cut is a race. A body that never ends can only end by the client hanging up.
  it("a body that never ends is cut at the limit: the client hangs up", async () => {
    let written = 0;
    let closedByClient = false;
    const endless = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, "x");
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
      };
      res.on("drain", pump);
      res.on("close", () => {
        closedByClient = true;
      });
      pump();
    });
    const url = await listen(endless);
    const c = makeClient(api, { baseUrl: url, maxResponseBytes: 1024 * 1024, maxRetries: 3 });
    const error = await failure(c.call("getPart", { params: { id: "x" } }));
    expect(error).toMatchObject({ kind: "too_large", attempts: 1 });
    expect(await eventually(() => closedByClient)).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
    await c.close();
    await close(endless);
  });

  it("a declared content-length over the limit is refused before any body byte", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(10 * 1024 * 1024) });
      res.write("{");
    });
    const url = await listen(server);
    const c = makeClient(api, { baseUrl: url, maxResponseBytes: 1024 * 1024, maxRetries: 0 });
    const error = await failure(c.call("getPart", { params: { id: "x" } }));
    expect(error.kind).toBe("too_large");
    expect(error.detail).toContain("10485760 bytes");
    await c.close();
    await close(server);
  });

  it("a connection reset mid-body: a read retries, and without retries reports a network error", async () => {
    const error = await failure(malformed("reset-mid-body"));
    expect(error.kind).toBe("network");
    const retrying = makeClient(api, { maxRetries: 2, maxResponseBytes: 64 * 1024 });
    await expect(malformed("reset-mid-body", retrying)).resolves.toMatchObject({ id: partId });
    await retrying.close();
  });

  it("a slow drip past the deadline is a timeout", async () => {
    const short = makeClient(api, { timeoutMs: 250, maxRetries: 0 });
    const error = await failure(malformed("slow-drip", short));
    expect(error.kind).toBe("timeout");
    await short.close();
  });

  it("a body missing a required field is a contract error naming the field", async () => {
    const error = await failure(malformed("missing-required"));
    expect(error).toMatchObject({ kind: "contract", status: 200 });
    expect(error.issues).toContainEqual({ path: ["id"], message: expect.stringMatching(/expected string/) });
  });

  it("a field of the wrong type is a contract error naming the field", async () => {
    const error = await failure(malformed("wrong-field-types"));
    expect(error).toMatchObject({ kind: "contract" });
    expect(error.issues?.[0]?.message).toMatch(/expected \w+, received \w+/);
    expect(error.issues?.[0]?.path.length).toBeGreaterThan(0);
  });

  it("unknown extra fields are tolerated (and dropped)", async () => {
    const part = await malformed("extra-fields");
    expect(typeof part.id).toBe("string");
    expect(typeof part.title).toBe("string");
    const known = Object.keys(Part.shape);
    for (const key of Object.keys(part)) expect(known).toContain(key);
  });

  it("every failure without an upstream message carries a short detail of what was wrong", async () => {
    const cases: [MalformedVariant, RegExp][] = [
      ["truncated-json", /^HTTP 200 with a body that is not valid JSON/],
      ["wrong-content-type", /^HTTP 200 with content-type text\/plain instead of application\/json$/],
      ["empty", /^HTTP 200 with an empty body/],
      ["missing-required", /^HTTP 200 with a body that does not match the API's contract$/],
      ["wrong-field-types", /^HTTP 200 with a body that does not match the API's contract$/],
      ["html", /^HTTP 502 with an HTML page/],
      ["oversized", /larger than the limit of 65536 bytes$/],
      ["reset-mid-body", /^the connection (was reset|was closed by the other side)$/],
      ["redirect-other-host", /^HTTP 302 to 127\.0\.0\.2:\d+, not followed$/],
    ];
    for (const [variant, detail] of cases) {
      api.faults.clear();
      const error = await failure(malformed(variant));
      expect(error.detail, variant).toMatch(detail);
      expect(error.message, variant).not.toContain(api.demoToken);
    }
    // An upstream message says it all: no detail beside it.
    api.faults.clear();
    expect((await failure(malformed("error-shape-200"))).detail).toBeUndefined();
  });

  it("contract errors name nested paths like items[0].title", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          items: [
            { code: "A", name: "ok" },
            { code: "B", name: 7 },
          ],
        }),
      );
    });
    const url = await listen(server);
    const c = makeClient(api, { baseUrl: url });
    const error = await failure(c.call("listStandards"));
    expect(error.kind).toBe("contract");
    expect(error.issues).toEqual([
      { path: ["items", 1, "name"], message: "Invalid input: expected string, received number" },
    ]);
    await c.close();
    await close(server);
  });
});

describe("redirects", () => {
  it("are not followed: the other host is never contacted", async () => {
    let contacted = 0;
    const other = createServer((_req, res) => {
      contacted++;
      res.end("{}");
    });
    const otherUrl = await listen(other);
    const redirecting = createServer((_req, res) => {
      res.writeHead(307, { location: `${otherUrl}/v1/parts/x?sig=SECRETSIG&se=2030` });
      res.end();
    });
    const url = await listen(redirecting);
    const c = makeClient(api, { baseUrl: url });
    const error = await failure(c.call("getPart", { params: { id: "x" } }));
    expect(error).toMatchObject({ kind: "redirect", status: 307, attempts: 1 });
    expect(error.detail).toBe(`HTTP 307 to ${new URL(otherUrl).host}, not followed`);
    expect(error.message).not.toContain("SECRETSIG");
    expect(error.message).not.toContain("?");
    expect(contacted).toBe(0);
    await c.close();
    await close(redirecting);
    await close(other);
  });

  it("the API's redirect fault is reported as a redirect, and only the API was contacted", async () => {
    const error = await failure(malformed("redirect-other-host"));
    expect(error).toMatchObject({ kind: "redirect", status: 302, attempts: 1 });
    expect(error.message).toContain("127.0.0.2");
    expect(error.message).not.toContain("?");
    expect(api.stats.requests()).toBe(1);
  });

  it("a POST redirected with 307 is not re-sent anywhere", async () => {
    api.faults.add({
      endpoint: "createPart",
      action: { kind: "malformed", variant: "redirect-other-host" },
      times: 1,
    });
    const error = await failure(client.call("createPart", { body: { title: "x" } }));
    expect(error).toMatchObject({ kind: "redirect", status: 307 });
    expect(api.stats.requests()).toBe(1);
  });
});

describe("error bodies", () => {
  it("an error with code carries status, code and message", async () => {
    api.faults.add({
      endpoint: "getPart",
      action: { kind: "status", status: 404, message: "Part zz not found", code: "NOT_FOUND" },
      times: 1,
    });
    const error = await failure(client.call("getPart", { params: { id: "zz" } }));
    expect(error).toMatchObject({
      kind: "http",
      status: 404,
      code: "NOT_FOUND",
      upstreamMessage: "Part zz not found",
    });
    expect(error.message).toBe("GET /v1/parts/zz: HTTP 404 NOT_FOUND: Part zz not found");
  });

  it("an upstream message that echoes the token or a SAS URL is redacted", async () => {
    api.faults.add({
      endpoint: "getPart",
      action: {
        kind: "status",
        status: 400,
        message: `bad token ${api.demoToken} for https://a.blob.example.com/f?sv=1&sig=XYZ`,
      },
      times: 1,
    });
    const error = await failure(client.call("getPart", { params: { id: partId } }));
    expect(error.message).not.toContain(api.demoToken);
    expect(error.message).not.toContain("sig=XYZ");
    expect(error.upstreamMessage).toBe("bad token [REDACTED] for https://a.blob.example.com/f?[REDACTED]");
  });
});

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
