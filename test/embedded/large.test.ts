// The large generated catalogue: 100,000 parts that page like the sample ones, page 2,000 as
// correct as page 1.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpoints } from "../../src/api/endpoints";
import { Part } from "../../src/api/schemas";
import { type DemoAccount, startTestApi, type TestApi, TestStore } from "../../src/embedded/testing";
import { call, ok } from "./helpers";

let api: TestApi;
let acme: DemoAccount;
let borealis: DemoAccount;
const sampleCount = new TestStore().partCount;

beforeAll(async () => {
  api = await startTestApi({ catalogue: "large" });
  [acme, borealis] = api.accounts as [DemoAccount, DemoAccount];
});
afterAll(() => api.close());

const page = async (query: string, account: DemoAccount = acme) =>
  ok(await call(api, `/v1/parts?${query}`, { token: account.token }), endpoints.listParts.response);

describe("large catalogue", () => {
  it("adds 100,000 generated parts before the sample data", () => {
    expect(api.store.largeCatalogueSize).toBe(100_000);
    expect(api.store.partCount).toBe(100_000 + sampleCount);
  });

  it("page 2000 is as correct as page 1", async () => {
    const first = await page("page=1&pageSize=20");
    const far = await page("page=2000&pageSize=20");
    for (const result of [first, far]) {
      expect(result.items).toHaveLength(20);
      expect(result.hasMore).toBe(true);
      for (const item of result.items) Part.strict().parse(item);
    }
    expect(far.items[0]!.createdTime > first.items[19]!.createdTime).toBe(true);
    // The same items through another page size: no drift, no gap.
    const wide = await page("page=1000&pageSize=40");
    expect(wide.items.slice(20).map((p) => p.id)).toEqual(far.items.map((p) => p.id));
    // Each listed item is what a get answers, and visible to the caller.
    for (const item of far.items) {
      const got = ok(await call(api, `/v1/parts/${item.id}`), endpoints.getPart.response);
      expect(got).toEqual(item);
      expect(item.ipOwnerId === acme.orgId || (item.published && !item.internal)).toBe(true);
      if (item.ipOwnerId !== acme.orgId) expect(item.customFields).toEqual([]);
    }
  });

  it("the views hold on generated parts too", async () => {
    const owned = await page("view=IP_OWNER&page=400&pageSize=50", borealis);
    expect(owned.items).toHaveLength(50);
    expect(owned.items.every((p) => p.ipOwnerId === borealis.orgId)).toBe(true);
    expect(owned.items.some((p) => p.customFields.length > 0)).toBe(true);
    const consumer = await page("view=CONSUMER&page=900&pageSize=50");
    expect(consumer.items.every((p) => p.ipOwnerId !== acme.orgId && p.published && !p.internal)).toBe(true);
    const total = api.store.viewSize(acme.orgId);
    expect(total).toBe(
      api.store.viewSize(acme.orgId, "IP_OWNER") + api.store.viewSize(acme.orgId, "CONSUMER"),
    );
    expect(total).toBeGreaterThan(60_000);
  });

  it("the last page ends with the sample data, and hasMore is false", async () => {
    const total = api.store.viewSize(acme.orgId);
    const last = Math.ceil(total / 50);
    const result = await page(`page=${last}&pageSize=50`);
    expect(result.hasMore).toBe(false);
    expect(result.items).toHaveLength(total - (last - 1) * 50);
    const sampleVisible = api.store
      .sampleParts()
      .filter((p) => p.ipOwnerId === acme.orgId || (p.published && !p.internal));
    expect(result.items.at(-1)?.id).toBe(sampleVisible.at(-1)?.id);
    expect((await page(`page=${last + 1}&pageSize=50`)).items).toEqual([]);
  });

  it("generated ids resolve without a map; near-misses are unknown", async () => {
    const item = (await page("page=5&pageSize=1&view=IP_OWNER")).items[0]!;
    expect(item.id).toMatch(/^prt_c[0-9a-z]{7}$/);
    expect(api.store.getPart(item.id)).toEqual(item);
    const upper = `prt_c${item.id.slice(5).toUpperCase()}`;
    for (const id of [
      "prt_c0000000",
      "prt_czzzzzzz",
      `${item.id}0`,
      item.id.slice(0, -1),
      upper === item.id ? "prt_cXXXXXXX" : upper,
    ]) {
      expect((await call(api, `/v1/parts/${id}`)).status, id).toBe(404);
    }
  });

  it("generated revisions point at a generated root of the same owner and title", () => {
    const small = new TestStore({ largeCatalogueSize: 3000 });
    const versions = [...small.parts()].slice(0, 3000).filter((p) => p.parentId !== undefined);
    expect(versions.length).toBeGreaterThan(500);
    for (const v of versions.slice(0, 100)) {
      const root = small.getPart(v.parentId as string)!;
      expect(root.ipOwnerId).toBe(v.ipOwnerId);
      expect(root.title).toBe(v.title);
      expect(v.versionName).toMatch(/^Rev [BC]$/);
    }
    // The same index gives the same part whatever the catalogue size.
    const item = [...small.parts()][1234]!;
    expect(api.store.getPart(item.id)).toEqual(item);
    expect(small.countPartsWithTitle(item.title)).toBeGreaterThan(0);
  });
});
