// Paging, the two views, visibility across organisations and the customFields rule.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpoints } from "../../src/api/endpoints";
import type { Part } from "../../src/api/schemas";
import { type DemoAccount, startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, errorOf, ok } from "./helpers";

let api: TestApi;
let acme: DemoAccount;
let borealis: DemoAccount;

beforeAll(async () => {
  api = await startTestApi();
  [acme, borealis] = api.accounts as [DemoAccount, DemoAccount];
});
afterAll(() => api.close());

const list = async (query: string, account: DemoAccount = acme) =>
  ok(await call(api, `/v1/parts?${query}`, { token: account.token }), endpoints.listParts.response);

async function all(account: DemoAccount, view?: string, pageSize = 50): Promise<Part[]> {
  const items: Part[] = [];
  for (let page = 1; page < 1000; page++) {
    const result = await list(`page=${page}&pageSize=${pageSize}${view ? `&view=${view}` : ""}`, account);
    items.push(...result.items);
    if (!result.hasMore) {
      expect(result.items.length).toBeGreaterThan(0);
      return items;
    }
    expect(result.items).toHaveLength(pageSize);
  }
  throw new Error("no last page");
}

const isPublic = (p: Part) => p.published && !p.internal;

describe("paging", () => {
  it("defaults to page 1 and pageSize 20", async () => {
    const implicit = await list("");
    const explicit = await list("page=1&pageSize=20");
    expect(implicit).toEqual(explicit);
    expect(implicit.items).toHaveLength(20);
  });

  it("rejects page < 1 and pageSize outside 1..50, naming the field", async () => {
    for (const [query, field] of [
      ["page=0", "page"],
      ["pageSize=0", "pageSize"],
      ["pageSize=51", "pageSize"],
    ]) {
      const reply = await call(api, `/v1/parts?${query}`);
      expect(reply.status).toBe(400);
      expect(errorOf(reply).message.startsWith(`${field}: `)).toBe(true);
    }
    expect((await list("pageSize=1")).items).toHaveLength(1);
    expect((await list("pageSize=50")).items).toHaveLength(50);
  });

  it("hasMore is exact at the boundary, and a page past the end is empty", async () => {
    const total = api.store.viewSize(acme.orgId, "IP_OWNER");
    expect(total).toBeGreaterThan(10);
    const exact = await list(`view=IP_OWNER&pageSize=${Math.min(50, total)}&page=1`);
    // Pick a page size that divides the view exactly, and one that leaves one item over.
    const divisor = [10, 9, 8, 7, 6, 5, 4, 3, 2].find((d) => total % d === 0 && total / d <= 1000) ?? 1;
    const lastExact = await list(`view=IP_OWNER&pageSize=${divisor}&page=${total / divisor}`);
    expect(lastExact.items).toHaveLength(divisor);
    expect(lastExact.hasMore).toBe(false);
    const beforeLast = await list(`view=IP_OWNER&pageSize=${divisor}&page=${total / divisor - 1}`);
    expect(beforeLast.hasMore).toBe(true);
    const past = await list(`view=IP_OWNER&pageSize=${divisor}&page=${total / divisor + 1}`);
    expect(past).toEqual({ items: [], hasMore: false });
    expect(await list("view=IP_OWNER&page=100000")).toEqual({ items: [], hasMore: false });
    expect(exact.hasMore).toBe(total > 50);
  });

  it("pages never overlap or skip, in creation-time then id order", async () => {
    const small = await all(acme, undefined, 7);
    const large = await all(acme, undefined, 50);
    expect(small.map((p) => p.id)).toEqual(large.map((p) => p.id));
    expect(new Set(large.map((p) => p.id)).size).toBe(large.length);
    for (let i = 1; i < large.length; i++) {
      const [a, b] = [large[i - 1] as Part, large[i] as Part];
      const order = a.createdTime < b.createdTime || (a.createdTime === b.createdTime && a.id < b.id);
      expect(order, `${a.id} before ${b.id}`).toBe(true);
    }
    expect(large.length).toBe(api.store.viewSize(acme.orgId));
  });
});

describe("views", () => {
  it("IP_OWNER is the caller's parts, published or not, internal or not", async () => {
    const owned = await all(acme, "IP_OWNER");
    const expected = api.store.sampleParts().filter((p) => p.ipOwnerId === acme.orgId);
    expect(owned.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    expect(owned.some((p) => !p.published)).toBe(true);
    expect(owned.some((p) => p.internal)).toBe(true);
  });

  it("CONSUMER is the published, non-internal parts of the other organisations", async () => {
    const consumer = await all(acme, "CONSUMER");
    const expected = api.store.sampleParts().filter((p) => p.ipOwnerId !== acme.orgId && isPublic(p));
    expect(consumer.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    expect(new Set(consumer.map((p) => p.ipOwnerId)).size).toBe(2);
  });

  it("no view is everything the caller may see: IP_OWNER and CONSUMER together", async () => {
    for (const account of [acme, borealis]) {
      const everything = await all(account);
      const owned = await all(account, "IP_OWNER");
      const consumer = await all(account, "CONSUMER");
      expect(everything.length).toBe(owned.length + consumer.length);
      expect(new Set(everything.map((p) => p.id))).toEqual(new Set([...owned, ...consumer].map((p) => p.id)));
      const hidden = api.store.sampleParts().filter((p) => p.ipOwnerId !== account.orgId && !isPublic(p));
      expect(hidden.length).toBeGreaterThan(0);
      const seen = new Set(everything.map((p) => p.id));
      expect(hidden.some((p) => seen.has(p.id))).toBe(false);
    }
  });
});

describe("visibility and customFields across organisations", () => {
  it("customFields are filled for the owner and empty for everyone else", async () => {
    const part = api.store
      .sampleParts()
      .find((p) => p.ipOwnerId === borealis.orgId && isPublic(p) && p.customFields.length > 0) as Part;
    const asOwner = ok(
      await call(api, `/v1/parts/${part.id}`, { token: borealis.token }),
      endpoints.getPart.response,
    );
    expect(asOwner.customFields).toEqual(part.customFields);
    const asOther = ok(
      await call(api, `/v1/parts/${part.id}`, { token: acme.token }),
      endpoints.getPart.response,
    );
    expect(asOther.customFields).toEqual([]);
    expect({ ...asOther, customFields: part.customFields }).toEqual(asOwner);
    // The same rule in lists.
    for (const item of await all(acme)) {
      if (item.ipOwnerId !== acme.orgId) expect(item.customFields).toEqual([]);
    }
    const ownedWithFields = (await all(acme, "IP_OWNER")).filter((p) => p.customFields.length > 0);
    expect(ownedWithFields.length).toBeGreaterThan(10);
    expect(
      ownedWithFields.every((p) => p.customFields.every((c) => c.dropdownId.startsWith("dd-acme-"))),
    ).toBe(true);
  });

  it("another organisation's unpublished or internal parts answer 404, like unknown ids", async () => {
    const parts = api.store.sampleParts().filter((p) => p.ipOwnerId === borealis.orgId);
    const unpublished = parts.find((p) => !p.published && !p.internal) as Part;
    const internal = parts.find((p) => p.published && p.internal) as Part;
    for (const part of [unpublished, internal]) {
      expect(part).toBeDefined();
      const hidden = await call(api, `/v1/parts/${part.id}`, { token: acme.token });
      expect(hidden.status).toBe(404);
      expect(errorOf(hidden)).toEqual({
        status: 404,
        code: "not_found",
        message: `part "${part.id}" not found`,
      });
      expect((await call(api, `/v1/parts/${part.id}`, { token: borealis.token })).status).toBe(200);
    }
  });
});
