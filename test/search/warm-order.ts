// Warm search times at 100,000 parts, one search at a time (test/search/measure.ts times three
// at once): the searches whose whole answer is ranked (src/search/ranking.ts) and the others.
// Run: npx tsx test/search/warm-order.ts   (about 20 s)
import { createDeadline } from "../../src/client";
import { startTestApi } from "../../src/embedded/testing";
import type { PartSearch, PartSearchArgs } from "../../src/search";
import { searchOver } from "./support";

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
const { client, search } = searchOver(api.url, api.demoToken, { ttlMs: 600_000 });
try {
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
