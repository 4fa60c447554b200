// Requests as the API sees them (headers, paths, query, base-URL prefix), batch gets, and what
// the client logs.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PartsApiClient } from "../../src/client";
import { createLogger } from "../../src/log/logger";
import { type Api, failure, logLines, makeClient, allParts as readAllParts, startApi } from "./harness";

let api: Api;
let client: PartsApiClient;
let allParts: { id: string }[];

beforeAll(async () => {
  api = await startApi();
  client = makeClient(api);
  allParts = await readAllParts(client);
});
afterEach(() => {
  api.faults.clear();
  api.stats.reset();
});
afterAll(async () => {
  await client.close();
  await api.close();
});

describe("headers", () => {
  it("a GET sends Authorization and Accept, no Content-Type", async () => {
    await client.call("getPart", { params: { id: allParts[0]!.id } });
    const headers = api.stats.lastHeaders("getPart")!;
    expect(headers.authorization).toBe(`Bearer ${api.demoToken}`);
    expect(headers.accept).toBe("application/json");
    expect(headers["accept-encoding"]).toBe("identity");
    expect(headers["content-type"]).toBeUndefined();
  });

  it("a POST with a body sends Content-Type: application/json", async () => {
    await client.call("batchGetCriticalities", { body: { ids: ["a"] } });
    const headers = api.stats.lastHeaders("batchGetCriticalities")!;
    expect(headers["content-type"]).toBe("application/json");
    expect(headers.authorization).toBe(`Bearer ${api.demoToken}`);
    expect(headers.accept).toBe("application/json");
  });

  it("a per-call token replaces the client's", async () => {
    const other =
      api.accounts.find((a) => a.token !== api.demoToken)?.token ?? "someone-elses-token-0123456789";
    await client
      .call("getPart", { params: { id: allParts[0]!.id } }, { token: other })
      .catch(() => undefined);
    expect(api.stats.lastHeaders("getPart")!.authorization).toBe(`Bearer ${other}`);
  });

  it("a wrong token is a 401 with the API's facts, without the token", async () => {
    const bad = makeClient(api, { token: "not-the-right-token-0123456789" });
    const error = await failure(bad.call("getPart", { params: { id: allParts[0]!.id } }));
    expect(error).toMatchObject({
      kind: "http",
      status: 401,
      attempts: 1,
      sent: true,
      code: "unauthenticated",
    });
    expect(error.message).toBe(
      `GET /v1/parts/${allParts[0]!.id}: HTTP 401 unauthenticated: ${error.upstreamMessage}`,
    );
    expect(error.message).not.toContain("not-the-right-token");
    await bad.close();
  });
});

describe("paths", () => {
  it.each(["ASTM F3001", "ASTM E8/E8M"])(
    "the code %j (spaces, slash) is one encoded segment",
    async (code) => {
      const standard = await client.call("getStandard", { params: { code } });
      expect(standard.code).toBe(code);
    },
  );

  it.each([
    ["a/b", "/v1/parts/a%2Fb"],
    ["..", "/v1/parts/%2E%2E"],
    [".", "/v1/parts/%2E"],
    ["a?b=c#d", "/v1/parts/a%3Fb%3Dc%23d"],
    ["with space", "/v1/parts/with%20space"],
  ])("the id %j stays one segment of getPart", async (id, path) => {
    const error = await failure(client.call("getPart", { params: { id } }));
    expect(error).toMatchObject({ kind: "http", status: 404, path });
    // Routed to getPart, never to listParts or another endpoint.
    expect(api.stats.requests("getPart")).toBe(1);
    expect(api.stats.requests("listParts")).toBe(0);
  });

  it("a missing path parameter is a programming error, not a request", async () => {
    await expect(client.call("getPart", {})).rejects.toThrow("missing path parameter id");
    expect(api.stats.requests("getPart")).toBe(0);
  });
});

describe("base URL with a path prefix, and the query string", () => {
  let proxy: Server;
  let proxyUrl: string;
  const seen: string[] = [];

  beforeAll(async () => {
    const target = new URL(api.url);
    proxy = createServer((req, res) => {
      seen.push(req.url ?? "");
      if (!req.url?.startsWith("/api/v1/")) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"status":404,"message":"no prefix"}');
        return;
      }
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url.slice("/api".length),
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it("keeps the prefix (a trailing slash is fine)", async () => {
    const prefixed = makeClient(api, { baseUrl: `${proxyUrl}/api/` });
    const part = await prefixed.call("getPart", { params: { id: allParts[0]!.id } });
    expect(part.id).toBe(allParts[0]!.id);
    expect(seen.at(-1)).toBe(`/api/v1/parts/${encodeURIComponent(allParts[0]!.id)}`);
    await prefixed.close();
  });

  it("omits undefined query parameters and encodes the rest", async () => {
    const prefixed = makeClient(api, { baseUrl: `${proxyUrl}/api` });
    await prefixed.call("listParts", { query: { page: 1, pageSize: undefined, view: undefined } });
    expect(seen.at(-1)).toBe("/api/v1/parts?page=1");
    await prefixed.call("listParts");
    expect(seen.at(-1)).toBe("/api/v1/parts");
    await prefixed.call("listStandards", { query: { governingBody: "ASTM & ISO" } });
    expect(seen.at(-1)).toBe("/api/v1/standards?governingBody=ASTM%20%26%20ISO");
    await prefixed.close();
  });
});

describe("batchGet", () => {
  it("de-duplicates, chunks, restores the caller's order and reports missing keys", async () => {
    const small = makeClient(api, { batchSize: 2 });
    const keys = ["ASTM E8/E8M", "NOPE 1", "ASTM F3001", "ASTM E8/E8M", "NOPE 2", "ASTM F3001"];
    const result = await small.batchGet("batchGetStandards", keys);
    expect(result.items.map((s) => s.code)).toEqual(["ASTM E8/E8M", "ASTM F3001"]);
    expect(result.missing).toEqual(["NOPE 1", "NOPE 2"]);
    // 4 distinct keys in chunks of 2.
    expect(api.stats.requests("batchGetStandards")).toBe(2);
    await small.close();
  });

  it("matches on id for criticalities and categories", async () => {
    const crit = await client.call("batchGetCriticalities", { body: { ids: [] } });
    expect(crit.items).toEqual([]);
    const small = makeClient(api, { batchSize: 1 });
    const ids = await discoverIds();
    const wanted = [ids.criticalities[1]!, "none", ids.criticalities[0]!];
    const result = await small.batchGet("batchGetCriticalities", wanted);
    expect(result.items.map((c) => c.id)).toEqual([ids.criticalities[1], ids.criticalities[0]]);
    expect(result.missing).toEqual(["none"]);
    expect(api.stats.requests("batchGetCriticalities")).toBe(1 + 3);
    const categories = await small.batchGet("batchGetCategories", [ids.categories[0]!, ids.categories[0]!]);
    expect(categories.items.map((c) => c.id)).toEqual([ids.categories[0]]);
    expect(categories.missing).toEqual([]);
    expect(api.stats.requests("batchGetCategories")).toBe(1);
    await small.close();
  });

  it("sends no request for no keys", async () => {
    await expect(client.batchGet("batchGetCategories", [])).resolves.toEqual({ items: [], missing: [] });
    expect(api.stats.requests("batchGetCategories")).toBe(0);
  });

  it("fails as a whole when a chunk fails, and starts no further chunk", async () => {
    api.faults.add({ endpoint: "batchGetStandards", action: { kind: "status", status: 400 }, times: 1 });
    const small = makeClient(api, { batchSize: 1 });
    const keys = ["ASTM E8/E8M", "ASTM F3001", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    await expect(small.batchGet("batchGetStandards", keys)).rejects.toMatchObject({
      kind: "http",
      status: 400,
    });
    expect(api.stats.requests("batchGetStandards")).toBeLessThan(keys.length);
    await small.close();
  });
});

describe("pool and lifecycle", () => {
  it("many concurrent calls share the pool", async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        client.call("getPart", { params: { id: allParts[i % allParts.length]!.id } }),
      ),
    );
    expect(results).toHaveLength(40);
  });

  it("close is idempotent, and a closed client fails with a network error", async () => {
    const c = makeClient(api, { maxRetries: 0 });
    await c.close();
    await c.close();
    await expect(c.call("listParts")).rejects.toMatchObject({ kind: "network" });
  });
});

describe("logging", () => {
  it("one debug line per attempt and a warning per retry, never the token", async () => {
    const lines: string[] = [];
    const c = makeClient(api, {
      logger: createLogger({ level: "debug", write: (line) => lines.push(line) }),
    });
    api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 503 }, times: 1 });
    await c.call("getPart", { params: { id: allParts[0]!.id } });
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const debug = parsed.filter((l) => l.level === "debug");
    const warn = parsed.filter((l) => l.level === "warn");
    expect(debug).toHaveLength(2);
    expect(debug[0]).toMatchObject({ method: "GET", status: 503, attempt: 1 });
    expect(debug[1]).toMatchObject({ method: "GET", status: 200, attempt: 2 });
    expect(typeof debug[0]!.ms).toBe("number");
    expect(debug[0]!.path).toBe(`/v1/parts/${encodeURIComponent(allParts[0]!.id)}`);
    expect(warn).toHaveLength(1);
    expect(warn[0]).toMatchObject({ status: 503, attempt: 1 });
    logLines.push(...lines);
    await c.close();
  });

  // Issue 13, item 4: a per-user token is redacted from the logs only once the API accepted it,
  // so that what an unauthenticated caller sends cannot change anyone's log lines.
  it("a per-call token the API accepted becomes a log secret; a refused one does not", async () => {
    const lines: string[] = [];
    const c = makeClient(api, { logger: createLogger({ level: "info", write: (line) => lines.push(line) }) });
    const accepted = api.accounts[1]!.token;
    const refused = "pat_refused_by_the_api_00000";
    await c.call("listParts", { query: { pageSize: 1 } }, { token: accepted });
    await failure(c.call("getPart", { params: { id: allParts[0]!.id } }, { token: refused }));
    const logger = (c as unknown as { logger: { info(msg: string): void } }).logger;
    logger.info(`${accepted} ${refused}`);
    expect(JSON.parse(lines.at(-1)!).msg).toBe(`[REDACTED] ${refused}`);
    await c.close();
  });

  it("nothing any client logged in this file contains the token", () => {
    expect(logLines.length).toBeGreaterThan(5);
    for (const line of logLines) {
      expect(line).not.toContain(api.demoToken);
      expect(line.toLowerCase()).not.toContain("bearer");
    }
  });
});

async function discoverIds(): Promise<{ criticalities: string[]; categories: string[] }> {
  const ids = { criticalities: new Set<string>(), categories: new Set<string>() };
  for (const part of await readAllParts(client)) {
    for (const id of part.criticalityIds ?? []) ids.criticalities.add(id);
    for (const id of part.categoryIds ?? []) ids.categories.add(id);
  }
  expect(ids.criticalities.size).toBeGreaterThanOrEqual(2);
  expect(ids.categories.size).toBeGreaterThanOrEqual(1);
  return { criticalities: [...ids.criticalities], categories: [...ids.categories] };
}
