// Retry rules, deadline and cancellation, counted on the API side over real HTTP.
import { getEventListeners } from "node:events";
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDeadline, type PartsApiClient, PartsApiError } from "../../src/client";
import { type Api, eventually, failure, logLines, makeClient, startApi } from "./harness";

let api: Api;
let client: PartsApiClient;
let partId: string;

beforeAll(async () => {
  api = await startApi();
  client = makeClient(api);
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

const getPart = (c: PartsApiClient = client, options?: Parameters<PartsApiClient["call"]>[2]) =>
  c.call("getPart", { params: { id: partId } }, options);

const createPart = (c: PartsApiClient = client) => c.call("createPart", { body: { title: "Bracket" } });

describe("reads", () => {
  it.each([429, 500, 502, 503, 504])("retry on %i until it succeeds", async (status) => {
    api.faults.add({ endpoint: "getPart", action: { kind: "status", status }, times: 2 });
    const part = await getPart();
    expect(part.id).toBe(partId);
    expect(api.stats.requests("getPart")).toBe(3);
  });

  it("retry on a dropped connection", async () => {
    api.faults.add({ endpoint: "getPart", action: { kind: "drop" }, times: 2 });
    await expect(getPart()).resolves.toMatchObject({ id: partId });
    expect(api.stats.requests("getPart")).toBe(3);
  });

  it.each([400, 401, 403, 404, 422])("do not retry %i", async (status) => {
    api.faults.add({
      endpoint: "getPart",
      action: { kind: "status", status, message: "no", code: "X" },
      times: 5,
    });
    const error = await failure(getPart());
    expect(error).toBeInstanceOf(PartsApiError);
    expect(error).toMatchObject({ kind: "http", status, attempts: 1, code: "X", upstreamMessage: "no" });
    expect(error.method).toBe("GET");
    expect(error.path).toBe(`/v1/parts/${encodeURIComponent(partId)}`);
    expect(api.stats.requests("getPart")).toBe(1);
  });

  it("stop after maxRetries and report the attempts", async () => {
    api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 503 }, times: 50 });
    const error = await failure(getPart());
    expect(error).toMatchObject({ kind: "http", status: 503, attempts: 4 });
    expect(error.message).toMatch(/: HTTP 503\b.* \(4 attempts\)$/);
    expect(api.stats.requests("getPart")).toBe(4);
  });

  it("maxRetries 0 turns retrying off", async () => {
    const noRetry = makeClient(api, { maxRetries: 0 });
    api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 503 }, times: 5 });
    await expect(getPart(noRetry)).rejects.toMatchObject({ kind: "http", status: 503, attempts: 1 });
    api.faults.clear();
    api.faults.add({ endpoint: "getPart", action: { kind: "drop" }, times: 5 });
    await expect(getPart(noRetry)).rejects.toMatchObject({ kind: "network", attempts: 1 });
    expect(api.stats.requests("getPart")).toBe(2);
    await noRetry.close();
  });

  it("batch gets are reads: they retry a 503", async () => {
    api.faults.add({ endpoint: "batchGetCategories", action: { kind: "status", status: 503 }, times: 1 });
    await client.call("batchGetCategories", { body: { ids: ["x"] } });
    expect(api.stats.requests("batchGetCategories")).toBe(2);
  });

  it("retry an attempt that timed out while the deadline allows", async () => {
    const quick = makeClient(api, { attemptTimeoutMs: 200, timeoutMs: 5_000 });
    api.faults.add({ endpoint: "getPart", action: { kind: "latency", ms: 1_500 }, times: 1 });
    await expect(getPart(quick)).resolves.toMatchObject({ id: partId });
    expect(api.stats.requests("getPart")).toBe(2);
    await quick.close();
  });
});

describe("create and import (not idempotent)", () => {
  it.each([500, 502, 503, 504])("do not retry %i", async (status) => {
    api.faults.add({ endpoint: "createPart", action: { kind: "status", status }, times: 5 });
    const error = await failure(createPart());
    expect(error).toMatchObject({ kind: "http", status, attempts: 1, sent: true });
    expect(api.stats.requests("createPart")).toBe(1);
  });

  it("do not retry a connection dropped after the request was sent", async () => {
    api.faults.add({ endpoint: "createPart", action: { kind: "drop" }, times: 5 });
    const error = await failure(createPart());
    // Sent: the request may have taken effect (the words say so, test/errors/words.test.ts).
    expect(error).toMatchObject({ kind: "network", attempts: 1, sent: true });
    expect(api.stats.requests("createPart")).toBe(1);
  });

  it("do not retry an import answered 503", async () => {
    api.faults.add({ endpoint: "importPartFile", action: { kind: "status", status: 503 }, times: 5 });
    const call = client.call("importPartFile", {
      params: { partId },
      body: { name: "a.step", sasUrl: "https://files.example.com/a.step?sv=1&sig=abc" },
    });
    await expect(call).rejects.toMatchObject({ kind: "http", status: 503, attempts: 1 });
    expect(api.stats.requests("importPartFile")).toBe(1);
  });

  it("retry 429", async () => {
    api.faults.add({ endpoint: "createPart", action: { kind: "status", status: 429 }, times: 1 });
    await expect(createPart()).resolves.toHaveProperty("id");
    expect(api.stats.requests("createPart")).toBe(2);
  });

  it("retry a connection refused before anything was sent", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const refused = makeClient(api, { baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
    const error = await failure(createPart(refused));
    // Never sent: nothing can have been created.
    expect(error).toMatchObject({ kind: "network", code: "ECONNREFUSED", attempts: 3, sent: false });
    expect(error.detail).toBe("the connection was refused");
    expect(error.message).toBe(
      `POST /v1/parts: no answer from http://127.0.0.1:${port}: the connection was refused (ECONNREFUSED) (3 attempts)`,
    );
    await refused.close();
  });
});

describe("Retry-After", () => {
  it("honours delta-seconds", async () => {
    api.faults.add({
      endpoint: "getPart",
      action: { kind: "status", status: 429, retryAfter: "1" },
      times: 1,
    });
    const start = Date.now();
    await getPart();
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(4_000);
    expect(api.stats.requests("getPart")).toBe(2);
  });

  it("honours an HTTP-date", async () => {
    const date = new Date(Date.now() + 2_000).toUTCString(); // whole seconds: a wait of 1 to 2 s
    api.faults.add({
      endpoint: "getPart",
      action: { kind: "status", status: 503, retryAfter: date },
      times: 1,
    });
    const start = Date.now();
    await getPart();
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(4_000);
    expect(api.stats.requests("getPart")).toBe(2);
  });

  it("returns a 429 at once when the wait asked for is longer than the time left", async () => {
    const short = makeClient(api, { timeoutMs: 3_000 });
    api.faults.add({
      endpoint: "getPart",
      action: { kind: "status", status: 429, retryAfter: "60" },
      times: 5,
    });
    const start = Date.now();
    const error = await failure(getPart(short));
    expect(Date.now() - start).toBeLessThan(1_500);
    expect(error).toMatchObject({ kind: "http", status: 429, retryAfterSeconds: 60, attempts: 1 });
    expect(api.stats.requests("getPart")).toBe(1);
    await short.close();
  });
});

describe("deadline", () => {
  it("gives up at the deadline with a timeout that says what to do", async () => {
    const short = makeClient(api, { timeoutMs: 300, attemptTimeoutMs: 2_000 });
    api.faults.add({ endpoint: "getPart", action: { kind: "latency", ms: 3_000 }, times: 5 });
    const start = Date.now();
    const error = await failure(getPart(short));
    const elapsed = Date.now() - start;
    expect(error).toMatchObject({ kind: "timeout", attempts: 1, sent: true });
    expect(error.detail).toMatch(/^the call's deadline passed \(waited \d+ ms over 1 attempt\)$/);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1_500);
    expect(await eventually(() => api.stats.closedEarly("getPart") >= 1)).toBe(true);
    await short.close();
  });

  it("one deadline bounds retries, attempts and waits together", async () => {
    const c = makeClient(api, { timeoutMs: 10_000, attemptTimeoutMs: 150, maxRetries: 10 });
    api.faults.add({ endpoint: "getPart", action: { kind: "latency", ms: 2_000 }, times: 50 });
    const start = Date.now();
    const error = await failure(getPart(c, { deadline: createDeadline(700) }));
    const elapsed = Date.now() - start;
    expect(error.kind).toBe("timeout");
    expect(error.attempts).toBeGreaterThanOrEqual(2);
    expect(elapsed).toBeLessThan(1_700);
    await c.close();
  });

  it("an exhausted deadline fails before sending anything", async () => {
    const error = await failure(getPart(client, { deadline: createDeadline(0) }));
    expect(error).toMatchObject({ kind: "timeout", attempts: 0, sent: false });
    expect(api.stats.requests("getPart")).toBe(0);
  });
});

describe("cancellation", () => {
  it("aborts the request in flight: the API sees the connection close", async () => {
    api.faults.add({ endpoint: "getPart", action: { kind: "latency", ms: 3_000 }, times: 5 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const start = Date.now();
    const error = await failure(getPart(client, { signal: controller.signal }));
    expect(error).toMatchObject({ kind: "cancelled", attempts: 1, sent: true });
    expect(Date.now() - start).toBeLessThan(1_500);
    expect(await eventually(() => api.stats.closedEarly("getPart") >= 1)).toBe(true);
    expect(api.stats.requests("getPart")).toBe(1);
  });

  it("aborts a backoff wait", async () => {
    api.faults.add({
      endpoint: "getPart",
      action: { kind: "status", status: 503, retryAfter: "3" },
      times: 5,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const start = Date.now();
    await expect(getPart(client, { signal: controller.signal })).rejects.toMatchObject({ kind: "cancelled" });
    expect(Date.now() - start).toBeLessThan(1_500);
    expect(api.stats.requests("getPart")).toBe(1);
  });

  it("an aborted signal sends nothing", async () => {
    const error = await failure(getPart(client, { signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ kind: "cancelled", attempts: 0, sent: false });
    expect(api.stats.requests("getPart")).toBe(0);
  });

  it("requests sharing a signal each stop listening to it when they end", async () => {
    const controller = new AbortController();
    api.faults.add({
      endpoint: "getPart",
      action: { kind: "status", status: 503, retryAfter: "0" },
      times: 3,
    });
    await Promise.all(Array.from({ length: 20 }, () => getPart(client, { signal: controller.signal })));
    api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 404 }, times: 5 });
    await Promise.all(
      Array.from({ length: 5 }, () => failure(getPart(client, { signal: controller.signal }))),
    );
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("the client keeps working after a cancelled call", async () => {
    await expect(getPart()).resolves.toMatchObject({ id: partId });
  });
});
