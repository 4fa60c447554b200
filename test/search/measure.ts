// The measurements behind the part search's design and defaults (src/search/service.ts):
//   1. the index's memory per 100,000 parts, measured (heap) and as the index estimates it, beside
//      the size of the list_parts JSON it was built from;
//   2. MiniSearch against the hand-written index on the same 100,000 parts: memory, build time,
//      median query time (docs/decisions.md: why the hand-written one);
//   3. the first search over the 100,000-part catalogue until `complete` (calls, wall time,
//      list_parts requests) and the median of a repeat search on the warm index.
// Run: node --expose-gc --import tsx test/search/measure.ts   (about 30 s)
import MiniSearch from "minisearch";
import { createDeadline, PartsApiClient } from "../../src/client";
import { ReferenceData } from "../../src/data/reference";
import { LargeCatalogue } from "../../src/embedded/data/large";
import { startTestApi } from "../../src/embedded/testing";
import { silentLogger } from "../../src/log/logger";
import { PAGE_SIZE, PartSearch, type PartSearchArgs } from "../../src/search";
import { PartIndex } from "../../src/search/part-index";
import { stems, words } from "../../src/search/text";
import { searchableText } from "../../src/search/word-index";

/** Node's collector, exposed by the command line (the heap is measured after full collections). */
function gc(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (!exposed) throw new Error("run it as: node --expose-gc --import tsx test/search/measure.ts");
  exposed();
}
const MiB = 1024 * 1024;
const PARTS = 100_000;
const QUERIES = ["engine mount bracket", "gyroid", "acme brk c000124", "br", "no such word"];

function heapBytes(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function timeQuery(run: () => unknown, repeats = 9): number {
  run();
  return median(
    Array.from({ length: repeats }, () => {
      const started = performance.now();
      run();
      return performance.now() - started;
    }),
  );
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Pages of the generated catalogue as the API sends them (parsed JSON, and the JSON's length). */
function* pages(count: number) {
  const catalogue = new LargeCatalogue(count);
  for (let page = 1; (page - 1) * PAGE_SIZE < count; page++) {
    const size = Math.min(PAGE_SIZE, count - (page - 1) * PAGE_SIZE);
    const json = JSON.stringify(
      Array.from({ length: size }, (_, j) => catalogue.part((page - 1) * PAGE_SIZE + j)),
    );
    yield {
      page,
      items: JSON.parse(json),
      hasMore: page * PAGE_SIZE < count,
      jsonBytes: Buffer.byteLength(json),
    };
  }
}

export function measureIndex(count = PARTS) {
  const before = heapBytes();
  const index = new PartIndex();
  const started = performance.now();
  let jsonBytes = 0;
  for (const { page, items, hasMore, jsonBytes: bytes } of pages(count)) {
    index.addPage(page, items, hasMore);
    jsonBytes += bytes;
  }
  const buildMs = performance.now() - started;
  const heap = heapBytes() - before;
  const query = (text: string) => ({
    filters: {},
    readings: [stems(text).map((word) => ({ prefixes: [word], codes: {} }))],
  });
  const queryMs = QUERIES.map((text) => timeQuery(() => index.matches(query(text), 0, count, count)));
  return {
    parts: count,
    heapMiB: round(heap / MiB),
    estimateMiB: round(index.bytes / MiB),
    /** The parts' JSON as list_parts pages carry it. */
    jsonMiB: round(jsonBytes / MiB),
    buildMsWithGeneration: Math.round(buildMs),
    medianQueryMs: Math.max(...queryMs.map((ms) => round(ms, 2))),
  };
}

export function measureMiniSearch(count = PARTS) {
  const before = heapBytes();
  const search = new MiniSearch<{ id: number; text: string }>({
    fields: ["text"],
    tokenize: words,
    searchOptions: { prefix: true, combineWith: "AND", tokenize: words },
  });
  const started = performance.now();
  let position = 0;
  for (const { items } of pages(count)) {
    for (const part of items) {
      search.add({ id: position++, text: searchableText(part).filter(Boolean).join(" ") });
    }
  }
  const buildMs = performance.now() - started;
  const heap = heapBytes() - before;
  const queryMs = QUERIES.map((text) => timeQuery(() => search.search(text)));
  return {
    parts: count,
    heapMiB: round(heap / MiB),
    buildMsWithGeneration: Math.round(buildMs),
    medianQueryMs: Math.max(...queryMs.map((ms) => round(ms, 2))),
  };
}

export async function measureLargeSearch(args: PartSearchArgs = { text: "no such word" }) {
  const api = await startTestApi({ catalogue: "large", largeCatalogueSize: PARTS });
  const client = new PartsApiClient({
    baseUrl: api.url,
    token: api.demoToken,
    timeoutMs: 30_000,
    attemptTimeoutMs: 10_000,
    maxRetries: 2,
    batchSize: 50,
    maxResponseBytes: 16 * MiB,
    logger: silentLogger,
  });
  try {
    const reference = new ReferenceData(client, api.demoToken, { ttlMs: 600_000, maxEntries: 1_000 });
    const search = new PartSearch(client, reference, api.demoToken, { ttlMs: 600_000 });
    const requestsBefore = api.stats.requests("listParts");
    const started = performance.now();
    let calls = 0;
    let cursor: string | undefined;
    let scanned = 0;
    for (;;) {
      calls += 1;
      const result = await search.searchParts({ ...args, cursor }, { deadline: createDeadline(30_000) });
      scanned = result.scanned;
      if (result.complete) break;
      cursor = result.nextCursor;
    }
    const firstMs = performance.now() - started;
    const requests = api.stats.requests("listParts") - requestsBefore;
    const repeats = await Promise.all(
      [{ text: "engine mount bracket" }, { materialId: "ti64" }, args].map(async (repeat) => {
        const samples: number[] = [];
        for (let i = 0; i < 15; i++) {
          const t = performance.now();
          await search.searchParts(repeat, {});
          samples.push(performance.now() - t);
        }
        return median(samples);
      }),
    );
    return {
      partsVisible: scanned,
      firstComplete: { calls, wallMs: Math.round(firstMs), listPartsRequests: requests },
      repeatMedianMs: repeats.map((ms) => round(ms, 2)),
      indexEstimateMiB: round(search.bytes / MiB),
    };
  } finally {
    await client.close();
    await api.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log("hand-written index", measureIndex());
  console.log("MiniSearch (text only)", measureMiniSearch());
  console.log("first and repeat search, 100,000 parts", await measureLargeSearch());
}
