// The listing lies of the fault injector (src/embedded/testing/listing-lies.ts) do what the search
// tests rely on: each bends the real listing of the caller's organisation one documented way, and
// a request the API would refuse is still refused.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterEach(() => api.faults.clear());
afterAll(() => api?.close());

async function list(page: number, pageSize: number, token = api.demoToken) {
  const response = await fetch(`${api.url}/v1/parts?page=${page}&pageSize=${pageSize}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as { items: Part[]; hasMore: boolean } };
}

const ids = (parts: Part[]) => parts.map((part) => part.id);

describe("listing lies", () => {
  it("oversized: a page carries the parts that follow it too", async () => {
    const truth = await list(1, 20);
    const next = await list(2, 20);
    api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "oversized", extra: 5 } });
    const { body } = await list(1, 20);
    expect(ids(body.items)).toEqual([...ids(truth.body.items), ...ids(next.body.items).slice(0, 5)]);
    expect(body.hasMore).toBe(true);
  });

  it("shift: page p starts by × (p − 1) parts early, repeating the end of the page before", async () => {
    const truth = await list(1, 20);
    api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "shift", by: 3 } });
    const { body } = await list(2, 20);
    expect(ids(body.items).slice(0, 3)).toEqual(ids(truth.body.items).slice(-3));
  });

  it("endless: hasMore stays true, and past the end come made-up parts", async () => {
    api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "endless" } });
    const { body } = await list(1_000, 50);
    expect(body.hasMore).toBe(true);
    expect(body.items).toHaveLength(50);
    expect(body.items[0]?.id).toBe(`endless-${999 * 50}`);
  });

  it("hollow: from its page on, empty pages that say more follow", async () => {
    api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "hollow", fromPage: 2 } });
    expect((await list(1, 10)).body.items).toHaveLength(10);
    expect((await list(2, 10)).body).toEqual({ items: [], hasMore: true });
  });

  it("leaves a request the API would refuse to the API", async () => {
    api.faults.add({ endpoint: "listParts", action: { kind: "listing", lie: "endless" } });
    expect((await list(1, 10, "pat_not_a_real_token")).status).toBe(401);
    expect((await list(1, 51)).status).toBe(400);
  });

  it("apply to list_parts only", () => {
    expect(() =>
      api.faults.add({ endpoint: "getPart", action: { kind: "listing", lie: "hollow", fromPage: 1 } }),
    ).toThrow(/listParts only/);
  });
});
