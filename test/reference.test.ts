// The reference cache at the unit level, against the embedded API: entries are partitioned by
// token, so a record fetched with one token is never served to another.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PartsApiClient } from "../src/client";
import { ReferenceData } from "../src/data/reference";
import { SeenRecords } from "../src/data/seen";
import { startTestApi, type TestApi } from "../src/embedded/testing";
import { silentLogger } from "../src/log/logger";

let api: TestApi;
let client: PartsApiClient;

beforeAll(async () => {
  api = await startTestApi();
  client = new PartsApiClient({
    baseUrl: api.url,
    token: api.demoToken,
    timeoutMs: 5_000,
    attemptTimeoutMs: 5_000,
    maxRetries: 0,
    batchSize: 50,
    maxResponseBytes: 1 << 20,
    logger: silentLogger,
  });
});

afterAll(async () => {
  await client?.close();
  await api?.close();
});

const code = () => api.store.standards()[0]?.code as string;

describe("ReferenceData", () => {
  it("keeps entries per token: another token makes its own request", async () => {
    const reference = new ReferenceData(client, api.demoToken, { ttlMs: 60_000, maxEntries: 100 });
    const [first, second] = api.accounts;
    const before = api.stats.requests("getStandard");
    await reference.standard(code(), { token: first?.token });
    await reference.standard(code(), { token: first?.token });
    expect(api.stats.requests("getStandard") - before).toBe(1);
    await reference.standard(code(), { token: second?.token });
    expect(api.stats.requests("getStandard") - before).toBe(2);
  });

  it("never serves a cached record to a token the API refuses", async () => {
    const reference = new ReferenceData(client, api.demoToken, { ttlMs: 60_000, maxEntries: 100 });
    await reference.standard(code(), {});
    await expect(reference.standard(code(), { token: "pat_not_a_real_token" })).rejects.toMatchObject({
      status: 401,
    });
  });

  it("keeps what completions offer per token too", () => {
    const seen = new SeenRecords(api.demoToken);
    seen.record([{ kind: "part", id: "p-secret-1" }], { token: "a" });
    expect(seen.known("part", { token: "a" })).toEqual(["p-secret-1"]);
    expect(seen.known("part", { token: "b" })).toEqual([]);
    expect(seen.known("part", {})).toEqual([]);
  });

  it("keeps at most maxEntries records, dropping the least recently used", async () => {
    const reference = new ReferenceData(client, api.demoToken, { ttlMs: 60_000, maxEntries: 2 });
    const [a, b, c] = api.store.standards().map((standard) => standard.code);
    if (!a || !b || !c) throw new Error("the sample data has fewer than three standards");
    const requests = () => api.stats.requests("getStandard");
    const before = requests();
    await reference.standard(a, {});
    await reference.standard(b, {});
    await reference.standard(a, {}); // a is now the most recently used
    expect(requests() - before).toBe(2);
    await reference.standard(c, {}); // evicts b
    await reference.standard(a, {});
    expect(requests() - before).toBe(3);
    await reference.standard(b, {});
    expect(requests() - before).toBe(4);
  });

  it("with a TTL of 0 caches nothing", async () => {
    const reference = new ReferenceData(client, api.demoToken, { ttlMs: 0, maxEntries: 100 });
    const before = api.stats.requests("getStandard");
    await reference.standard(code(), {});
    await reference.standard(code(), {});
    expect(api.stats.requests("getStandard") - before).toBe(2);
  });
});
