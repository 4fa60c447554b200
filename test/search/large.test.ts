// search_parts on the 100,000-part catalogue: one call reads a bounded number of pages, within
// its deadline, reports progress and says how far it got; a cursor crosses processes; all
// tokens' indexes stay within one memory budget, and eviction costs requests, never answers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDeadline } from "../../src/client";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { PAGE_SIZE } from "../../src/search";
import { callWith, type Replica, replica, withoutCounts } from "./support";

let api: TestApi;
const replicas: Replica[] = [];
const open = (options: Parameters<typeof replica>[1]) => {
  const made = replica(api, options);
  replicas.push(made);
  return made;
};
const listRequests = () => api.stats.requests("listParts");

beforeAll(async () => {
  api = await startTestApi({ catalogue: "large" });
});

afterEach(async () => {
  api.faults.clear();
  await Promise.all(replicas.splice(0).map((r) => r.close()));
});

afterAll(() => api?.close());

describe("a search of the large catalogue", () => {
  it("reads at most pagesPerCall pages, reports progress, and a cursor continues it elsewhere", async () => {
    const pagesPerCall = 12;
    const seen: [number, number | undefined][] = [];
    const before = listRequests();
    const result = await open({ pagesPerCall }).search.searchParts(
      { text: "no such word" },
      callWith(),
      (done, total) => seen.push([done, total]),
    );
    expect(listRequests() - before).toBe(pagesPerCall);
    expect(result).toMatchObject({ items: [], scanned: pagesPerCall * PAGE_SIZE, complete: false });
    expect(seen.map(([done]) => done)).toEqual(
      [...new Set(seen.map(([done]) => done))].sort((a, b) => a - b),
    );
    expect(seen.at(-1)).toEqual([pagesPerCall * PAGE_SIZE, undefined]);

    const next = await open({ pagesPerCall }).search.searchParts(
      { text: "no such word", cursor: result.nextCursor },
      callWith(),
    );
    expect(next).toMatchObject({ items: [], scanned: 2 * pagesPerCall * PAGE_SIZE, complete: false });
  });

  it("returns the same items through a cursor on a process with no index", async () => {
    const args = { text: "gyroid", materialId: "in625", limit: 5 };
    const here = open({ pagesPerCall: 40 });
    const page1 = await here.search.searchParts(args, callWith());
    const page2 = await here.search.searchParts({ ...args, cursor: page1.nextCursor }, callWith());
    const there = await open({ pagesPerCall: 40 }).search.searchParts(
      { ...args, cursor: page1.nextCursor },
      callWith(),
    );
    expect(withoutCounts(there)).toEqual(withoutCounts(page2));
    expect(page2.items).toHaveLength(5);
  });

  it("continues a ranked answer on a process that has not read the catalogue, once it has", async () => {
    const own = await startTestApi({ catalogue: "large", largeCatalogueSize: 6_000 });
    const here = replica(own, { pagesPerCall: 500 });
    const there = replica(own, { pagesPerCall: 70 });
    try {
      const args = { text: "bracket", limit: 5 };
      await here.search.searchParts({ text: "no such word" }, callWith());
      const page1 = await here.search.searchParts(args, callWith());
      expect(page1.total).toBeGreaterThan(10);
      const page2 = await here.search.searchParts({ ...args, cursor: page1.nextCursor }, callWith());
      // 6,000 parts are 120 pages: the other process reads 70 of them, says so, and the same cursor goes on.
      const reading = await there.search.searchParts({ ...args, cursor: page1.nextCursor }, callWith());
      expect(reading).toMatchObject({ items: [], complete: false, nextCursor: page1.nextCursor });
      expect(reading.hint).toMatch(/goes on once the whole catalogue is read; 3500 parts are read so far/);
      const page2There = await there.search.searchParts({ ...args, cursor: page1.nextCursor }, callWith());
      expect(withoutCounts(page2There)).toEqual(withoutCounts(page2));
    } finally {
      await here.close();
      await there.close();
      await own.close();
    }
  });

  it("stops within the call's deadline and says how far it got, instead of failing", async () => {
    api.faults.add({ endpoint: "listParts", action: { kind: "latency", ms: 150 } });
    const started = Date.now();
    const result = await open({}).search.searchParts(
      { text: "no such word" },
      { deadline: createDeadline(800) },
    );
    expect(Date.now() - started).toBeLessThan(800);
    expect(result.complete).toBe(false);
    expect(result.scanned).toBeGreaterThan(0);
    expect(result.nextCursor).toBeDefined();
  });

  it("fails with the API's error when nothing could be read", async () => {
    await expect(open({}).search.searchParts({}, callWith("pat_not_a_real_token"))).rejects.toMatchObject({
      status: 401,
    });
  });
});

describe("the memory budget", () => {
  it("holds the indexes of all tokens; the least recently used goes first, at the cost of requests only", async () => {
    const [acme, borealis] = api.accounts.map((a) => a.token) as [string, string];
    const pagesPerCall = 40; // 2,000 parts: a little under 1 MiB of index
    const maxBytes = 1.5 * 1024 * 1024;
    const { search } = open({ pagesPerCall, maxBytes });
    const args = { text: "bracket", limit: 50 };

    const acmeFirst = await search.searchParts(args, callWith(acme));
    expect(search.bytes).toBeGreaterThan(maxBytes / 3);
    await search.searchParts(args, callWith(borealis));
    expect(search.bytes).toBeLessThanOrEqual(maxBytes);

    const before = listRequests();
    await search.searchParts(args, callWith(borealis));
    expect(listRequests()).toBe(before); // still held
    const acmeAgain = await search.searchParts(args, callWith(acme));
    expect(listRequests()).toBeGreaterThan(before); // evicted: read again
    expect(withoutCounts(acmeAgain)).toEqual(withoutCounts(acmeFirst));
    expect(search.bytes).toBeLessThanOrEqual(maxBytes);

    // An index that would outgrow the whole budget stops growing, and the search says so.
    const small = 64 * 1024;
    const tooBig = open({ pagesPerCall, maxBytes: small }).search;
    const partial = await tooBig.searchParts(args, callWith(acme));
    expect(partial).toMatchObject({ complete: false, hint: expect.stringMatching(/memory budget/) });
    expect(partial.nextCursor).toBeUndefined();
    expect(partial.items).toEqual(acmeFirst.items.slice(0, partial.items.length));
    expect(tooBig.bytes).toBeGreaterThan(0);
    expect(tooBig.bytes).toBeLessThanOrEqual(small);
  });
});
