// Warm search times at 100,000 parts, one search at a time (test/search/measure.ts times three
// at once): the searches whose whole answer is ranked (src/search/ranking.ts) and the others.
// Run: npx tsx test/search/warm-order.ts   (about 20 s)
import { createDeadline, PartsApiClient } from "../../src/client";
import { ReferenceData } from "../../src/data/reference";
import { startTestApi } from "../../src/embedded/testing";
import { silentLogger } from "../../src/log/logger";
import { PartSearch, type PartSearchArgs } from "../../src/search";

const SEARCHES: PartSearchArgs[] = [
  { text: "engine mount bracket" },
  { text: "bracket" },
  { text: "moulded housing" },
  { text: "no such word" },
  { materialId: "ti64" },
  { text: "clamp", limit: 50 },
  { text: "acme brk c000124" },
  { text: "c00012", limit: 50 },
];

const api = await startTestApi({ catalogue: "large", largeCatalogueSize: 100_000 });
const client = new PartsApiClient({
  baseUrl: api.url,
  token: api.demoToken,
  timeoutMs: 30_000,
  attemptTimeoutMs: 10_000,
  maxRetries: 2,
  batchSize: 50,
  maxResponseBytes: 16 << 20,
  logger: silentLogger,
});
try {
  const reference = new ReferenceData(client, api.demoToken, { ttlMs: 600_000, maxEntries: 1_000 });
  const search = new PartSearch(client, reference, api.demoToken, { ttlMs: 600_000 });
  for (let cursor: string | undefined, done = false; !done; ) {
    const answer = await search.searchParts(
      { text: "no such word", cursor },
      { deadline: createDeadline(30_000) },
    );
    done = answer.complete;
    cursor = answer.nextCursor;
  }
  for (const args of SEARCHES) {
    const samples: number[] = [];
    let answer: Awaited<ReturnType<PartSearch["searchParts"]>> | undefined;
    for (let i = 0; i < 21; i++) {
      const started = performance.now();
      answer = await search.searchParts(args, {});
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    const median = Math.round((samples[10] as number) * 100) / 100;
    console.log(JSON.stringify(args), { medianMs: median, summary: answer?.summary });
  }
} finally {
  await client.close();
  await api.close();
}
