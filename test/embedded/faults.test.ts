// Fault injection: every action and malformed variant is observable on the wire; rules match,
// count and roll as documented; the stats see everything.
import { request } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { endpoints } from "../../src/api/endpoints";
import { Part } from "../../src/api/schemas";
import {
  FaultInjector,
  type FaultRule,
  type MALFORMED_VARIANTS,
  OVERSIZED_BYTES,
  startTestApi,
  type TestApi,
} from "../../src/embedded/testing";
import { call, errorOf } from "./helpers";

let api: TestApi;
let partId: string;
let partPath: string;

beforeAll(async () => {
  api = await startTestApi();
  partId = api.store.sampleParts().find((p) => p.ipOwnerId === api.accounts[0]!.orgId)!.id;
  partPath = `/v1/parts/${partId}`;
});
afterEach(() => {
  api.faults.clear();
  api.stats.reset();
});
afterAll(() => api.close());

const once = (rule: Omit<FaultRule, "times">) => api.faults.add({ times: 1, ...rule });

/** A GET with node:http: the status, headers and chunks as they arrive (with their times). */
function rawGet(path: string): Promise<{
  status: number;
  headers: Record<string, unknown>;
  chunks: { at: number; size: number }[];
  body: Buffer;
}> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${api.url}${path}`,
      { headers: { authorization: `Bearer ${api.demoToken}` } },
      (res) => {
        const chunks: { at: number; size: number }[] = [];
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => {
          chunks.push({ at: Date.now() - start, size: c.length });
          parts.push(c);
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, body: Buffer.concat(parts) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("status faults", () => {
  it("answer the Error shape with the status, code, message and raw Retry-After", async () => {
    once({ endpoint: "getPart", action: { kind: "status", status: 429, retryAfter: "7" } });
    const limited = await call(api, partPath);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(errorOf(limited).code).toBe("rate_limited");

    const date = "Wed, 21 Oct 2026 07:28:00 GMT";
    once({
      endpoint: "getPart",
      action: { kind: "status", status: 503, retryAfter: date, message: "maintenance", code: "MAINT" },
    });
    const unavailable = await call(api, partPath);
    expect(unavailable.headers.get("retry-after")).toBe(date);
    expect(errorOf(unavailable)).toEqual({ status: 503, message: "maintenance", code: "MAINT" });

    once({ endpoint: "getPart", action: { kind: "status", status: 500 } });
    expect(errorOf(await call(api, partPath)).code).toBe("internal");
    once({ endpoint: "getPart", action: { kind: "status", status: 401 } });
    const unauthorised = await call(api, partPath);
    expect(unauthorised.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await call(api, partPath)).status).toBe(200);
  });

  it("act before the handler: a faulted create creates nothing", async () => {
    const before = api.store.partCount;
    once({ endpoint: "createPart", action: { kind: "status", status: 503 } });
    expect((await call(api, "/v1/parts", { body: { title: "Never" } })).status).toBe(503);
    expect(api.store.partCount).toBe(before);
    expect(api.stats.requests("createPart")).toBe(1);
  });
});

describe("latency and drop", () => {
  it("latency delays, then answers normally", async () => {
    once({ endpoint: "getStandard", action: { kind: "latency", ms: 200 } });
    const start = Date.now();
    const reply = await call(api, "/v1/standards/ISO%209001");
    expect(Date.now() - start).toBeGreaterThanOrEqual(190);
    expect(reply.status).toBe(200);
  });

  it("a client that gives up during the latency is counted as closed early", async () => {
    once({ endpoint: "getPart", action: { kind: "latency", ms: 5_000 } });
    const aborted = fetch(`${api.url}${partPath}`, {
      headers: { authorization: `Bearer ${api.demoToken}` },
      signal: AbortSignal.timeout(100),
    });
    await expect(aborted).rejects.toThrow();
    await expect.poll(() => api.stats.closedEarly("getPart")).toBe(1);
    expect(api.stats.closedEarly()).toBe(1);
    expect(api.stats.requests("getPart")).toBe(1);
  });

  it("drop destroys the connection without an answer (not counted as closed early)", async () => {
    once({ endpoint: "getPart", action: { kind: "drop" } });
    await expect(call(api, partPath)).rejects.toThrow();
    expect(api.stats.requests("getPart")).toBe(1);
    expect((await call(api, partPath)).status).toBe(200);
    expect(api.stats.closedEarly()).toBe(0);
  });
});

describe("malformed variants", () => {
  const malformed = (
    variant: (typeof MALFORMED_VARIANTS)[number],
    endpoint: FaultRule["endpoint"] = "getPart",
  ) => once({ endpoint, action: { kind: "malformed", variant, durationMs: 600 } });

  it("html: a 502 HTML page", async () => {
    malformed("html");
    const reply = await call(api, partPath);
    expect(reply.status).toBe(502);
    expect(reply.headers.get("content-type")).toMatch(/^text\/html/);
    expect(reply.text).toContain("<html>");
  });

  it("truncated-json: 200 JSON cut in the middle, with a consistent Content-Length", async () => {
    malformed("truncated-json");
    const reply = await call(api, partPath);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expect(reply.json).toBeUndefined();
    expect(Number(reply.headers.get("content-length"))).toBe(Buffer.byteLength(reply.text));
    const full = JSON.stringify(api.store.partFor(partId, api.accounts[0]!.orgId));
    expect(full.startsWith(reply.text)).toBe(true);
    expect(reply.text.length).toBe(Math.floor(full.length / 2));
  });

  it("wrong-content-type: a valid JSON body as text/plain", async () => {
    malformed("wrong-content-type");
    const reply = await call(api, partPath);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(Part.parse(reply.json).id).toBe(partId);
  });

  it("empty: 200 with no body", async () => {
    malformed("empty");
    const reply = await call(api, partPath);
    expect(reply.status).toBe(200);
    expect(reply.text).toBe("");
    expect(reply.headers.get("content-length")).toBe("0");
  });

  it("error-shape-200: the Error shape with status 200", async () => {
    malformed("error-shape-200");
    const reply = await call(api, partPath);
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ status: 500, code: "internal" });
  });

  it("oversized: a valid JSON body over 16 MiB, streamed without Content-Length", async () => {
    malformed("oversized");
    const reply = await rawGet(partPath);
    expect(reply.status).toBe(200);
    expect(reply.headers["content-length"]).toBeUndefined();
    expect(reply.headers["transfer-encoding"]).toBe("chunked");
    expect(reply.body.length).toBeGreaterThan(16 * 1024 * 1024);
    expect(reply.body.length).toBeGreaterThanOrEqual(OVERSIZED_BYTES);
    const parsed = JSON.parse(reply.body.toString("utf8")) as Record<string, unknown>;
    expect(parsed.id).toBe(partId);
    expect(typeof parsed.padding).toBe("string");
  });

  it("slow-drip: the body arrives a few bytes at a time over the duration", async () => {
    malformed("slow-drip");
    const reply = await rawGet(partPath);
    expect(reply.status).toBe(200);
    expect(Part.parse(JSON.parse(reply.body.toString("utf8"))).id).toBe(partId);
    expect(reply.chunks.length).toBeGreaterThan(5);
    const first = reply.chunks[0]!.at;
    const last = reply.chunks.at(-1)!.at;
    expect(last - first).toBeGreaterThanOrEqual(450);
    expect(Math.max(...reply.chunks.map((c) => c.size))).toBeLessThan(reply.body.length / 4);
  });

  it("reset-mid-body: the headers arrive, then the body fails", async () => {
    malformed("reset-mid-body");
    const response = await fetch(`${api.url}${partPath}`, {
      headers: { authorization: `Bearer ${api.demoToken}` },
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(api.stats.closedEarly()).toBe(0);
  });

  it("redirect-other-host: 302 for GET, 307 for POST, to 127.0.0.2 on the same port and path", async () => {
    malformed("redirect-other-host");
    const get = await call(api, `${partPath}?x=1`);
    expect(get.status).toBe(302);
    const port = new URL(api.url).port;
    expect(get.headers.get("location")).toBe(`http://127.0.0.2:${port}${partPath}?x=1`);
    malformed("redirect-other-host", "batchGetStandards");
    const post = await call(api, "/v1/standards:batch-get", { body: { codes: ["ISO 9001"] } });
    expect(post.status).toBe(307);
    expect(post.headers.get("location")).toBe(`http://127.0.0.2:${port}/v1/standards:batch-get`);
  });

  it("wrong-field-types: the record with e.g. title 42 and published 'yes'", async () => {
    malformed("wrong-field-types");
    const reply = await call(api, partPath);
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ id: 42, title: 42, published: "yes" });
    expect(Part.safeParse(reply.json).success).toBe(false);
    malformed("wrong-field-types", "listParts");
    const list = await call(api, "/v1/parts?pageSize=2");
    expect(endpoints.listParts.response.safeParse(list.json).success).toBe(false);
  });

  it("missing-required: the record without its id", async () => {
    malformed("missing-required");
    const reply = await call(api, partPath);
    expect(reply.json).not.toHaveProperty("id");
    expect(reply.json).toHaveProperty("title");
    expect(Part.safeParse(reply.json).success).toBe(false);
    malformed("missing-required", "getStandard");
    const standard = await call(api, "/v1/standards/ISO%209001");
    expect(endpoints.getStandard.response.safeParse(standard.json).success).toBe(false);
  });

  it("extra-fields: the record plus unknown fields, still valid", async () => {
    malformed("extra-fields");
    const reply = await call(api, partPath);
    const extra = Object.keys(reply.json as object).filter((k) => !(k in Part.shape));
    expect(extra.length).toBeGreaterThan(0);
    expect(Part.parse(reply.json).id).toBe(partId);
    malformed("extra-fields", "listParts");
    expect(
      endpoints.listParts.response.parse((await call(api, "/v1/parts?pageSize=3")).json).items,
    ).toHaveLength(3);
  });

  it("mangling variants run the request: a create behind a truncated answer still creates", async () => {
    const before = api.store.partCount;
    malformed("truncated-json", "createPart");
    const reply = await call(api, "/v1/parts", { body: { title: "Created behind a broken answer" } });
    expect(reply.status).toBe(200);
    expect(reply.json).toBeUndefined();
    expect(api.store.partCount).toBe(before + 1);
    expect(api.store.countPartsWithTitle("Created behind a broken answer")).toBe(1);
  });

  it("mangling variants keep the status of an error outcome", async () => {
    malformed("wrong-content-type");
    const reply = await call(api, "/v1/parts/prt_missing");
    expect(reply.status).toBe(404);
    expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
  });
});

describe("rules", () => {
  it("match by endpoint name; '*' matches all; /openapi.json and unknown routes are never faulted", async () => {
    api.faults.add({ endpoint: "getStandard", action: { kind: "status", status: 503 } });
    expect((await call(api, "/v1/standards/ISO%209001")).status).toBe(503);
    expect((await call(api, "/v1/standards")).status).toBe(200);
    expect((await call(api, "/v1/standards:batch-get", { body: { codes: [] } })).status).toBe(200);
    api.faults.clear();
    api.faults.add({ action: { kind: "status", status: 500 } });
    for (const path of [partPath, "/v1/standards", "/v1/processes/lpbf", "/v1/rfqs/x"]) {
      expect((await call(api, path)).status, path).toBe(500);
    }
    expect((await call(api, "/openapi.json")).status).toBe(200);
    expect((await call(api, "/v1/nowhere")).status).toBe(404);
  });

  it("times: the first N matching requests, then spent; the first matching rule wins", async () => {
    api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 503 }, times: 2 });
    api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 429 }, times: 1 });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(api, partPath)).status);
    expect(statuses).toEqual([503, 503, 429, 200, 200]);
    expect(api.stats.requests("getPart")).toBe(5);
  });

  it("faults are off by default and clear() removes every rule", async () => {
    expect((await call(api, partPath)).status).toBe(200);
    api.faults.add({ action: { kind: "status", status: 500 } });
    api.faults.clear();
    expect((await call(api, partPath)).status).toBe(200);
  });

  it("probability rolls a seeded PRNG: reproducible, and about the given share", () => {
    const roll = (seed?: number) => {
      const injector = new FaultInjector(seed);
      injector.add({ action: { kind: "drop" }, probability: 0.3 });
      return Array.from({ length: 1000 }, () => (injector.pick("getPart") ? 1 : 0));
    };
    const a = roll();
    expect(roll()).toEqual(a);
    expect(roll(12345)).not.toEqual(a);
    const hits = a.reduce<number>((s, x) => s + x, 0);
    expect(hits).toBeGreaterThan(240);
    expect(hits).toBeLessThan(360);
    const never = new FaultInjector();
    never.add({ action: { kind: "drop" }, probability: 0 });
    expect(Array.from({ length: 100 }, () => never.pick("getPart")).every((x) => x === undefined)).toBe(true);
  });

  it("probability over HTTP: a flaky endpoint fails some requests, and the same seed fails the same ones", async () => {
    const run = async () => {
      const flaky = await startTestApi({
        faults: [{ endpoint: "getStandard", action: { kind: "status", status: 503 }, probability: 0.5 }],
      });
      const statuses = [];
      for (let i = 0; i < 20; i++) statuses.push((await call(flaky, "/v1/standards/ISO%209001")).status);
      await flaky.close();
      return statuses;
    };
    const first = await run();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  it("refuses invalid rules", () => {
    const bad: unknown[] = [
      { endpoint: "nope", action: { kind: "drop" } },
      { action: { kind: "drop" }, probability: 1.5 },
      { action: { kind: "drop" }, times: -1 },
      { action: { kind: "status", status: 42 } },
      { action: { kind: "status", status: 101 } },
      { action: { kind: "malformed", variant: "garbled" } },
      { action: { kind: "explode" } },
    ];
    for (const rule of bad)
      expect(() => api.faults.add(rule as FaultRule), JSON.stringify(rule)).toThrow(TypeError);
  });
});

describe("stats", () => {
  it("counts requests, all and per endpoint, faulted ones included, and resets", async () => {
    await call(api, partPath);
    await call(api, partPath);
    once({ endpoint: "getStandard", action: { kind: "status", status: 500 } });
    await call(api, "/v1/standards/ISO%209001");
    await call(api, "/v1/nowhere");
    expect(api.stats.requests("getPart")).toBe(2);
    expect(api.stats.requests("getStandard")).toBe(1);
    expect(api.stats.requests("listParts")).toBe(0);
    expect(api.stats.requests()).toBe(4);
    api.stats.reset();
    expect(api.stats.requests()).toBe(0);
    expect(api.stats.requests("getPart")).toBe(0);
    expect(api.stats.lastHeaders()).toBeUndefined();
  });

  it("keeps the headers of the last request, all and per endpoint", async () => {
    await call(api, "/v1/parts", { body: { title: "Headers" }, headers: { "x-trace": "abc" } });
    await call(api, "/v1/standards");
    const create = api.stats.lastHeaders("createPart");
    expect(create?.authorization).toBe(`Bearer ${api.demoToken}`);
    expect(create?.["content-type"]).toBe("application/json");
    expect(create?.accept).toBe("application/json");
    expect(create?.["x-trace"]).toBe("abc");
    expect(api.stats.lastHeaders()?.["content-type"]).toBeUndefined();
    expect(api.stats.lastHeaders("getRfq")).toBeUndefined();
  });
});

describe("close", () => {
  it("closes promptly with keep-alive connections and a slow answer in flight", async () => {
    const other = await startTestApi();
    await call(other, "/v1/standards");
    other.faults.add({ action: { kind: "malformed", variant: "slow-drip", durationMs: 30_000 } });
    const inFlight = fetch(`${other.url}/v1/standards`, {
      headers: { authorization: `Bearer ${other.demoToken}` },
    })
      .then((r) => r.text())
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const start = Date.now();
    await other.close();
    expect(Date.now() - start).toBeLessThan(1000);
    expect(await inFlight).toBeInstanceOf(Error);
    await expect(fetch(`${other.url}/v1/standards`)).rejects.toThrow();
    expect(other.stats.closedEarly()).toBe(0);
  });
});
