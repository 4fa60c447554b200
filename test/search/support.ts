// What the search tests share: the embedded API over real HTTP, a client and a PartSearch per
// "server process" (each with its own client, cache and indexes, as two replicas would have).
import type { Part } from "../../src/api/schemas";
import { type CallOptions, createDeadline, PartsApiClient } from "../../src/client";
import { ReferenceData } from "../../src/data/reference";
import type { TestApi } from "../../src/embedded/testing";
import { silentLogger } from "../../src/log/logger";
import { PartSearch, type PartSearchOptions } from "../../src/search";

export interface Replica {
  client: PartsApiClient;
  reference: ReferenceData;
  search: PartSearch;
  close(): Promise<void>;
}

export function replica(api: TestApi, options: Partial<PartSearchOptions> = {}): Replica {
  return searchOver(api.url, api.demoToken, options);
}

/** A client and a PartSearch over any API at `url` (the embedded one, or a fixture catalogue's). */
export function searchOver(url: string, token: string, options: Partial<PartSearchOptions> = {}): Replica {
  const client = new PartsApiClient({
    baseUrl: url,
    token,
    timeoutMs: 10_000,
    attemptTimeoutMs: 5_000,
    maxRetries: 0,
    batchSize: 50,
    maxResponseBytes: 8 << 20,
    logger: silentLogger,
  });
  const reference = new ReferenceData(client, token, { ttlMs: 60_000, maxEntries: 1_000 });
  const search = new PartSearch(client, reference, token, { ttlMs: 60_000, ...options });
  return { client, reference, search, close: () => client.close() };
}

/** A call's options, as the server makes them: a fresh deadline, and the token when not the default. */
export const callWith = (token?: string): CallOptions => ({
  deadline: createDeadline(10_000),
  ...(token !== undefined && { token }),
});

/** Every part a token sees, read page by page as a model without search_parts would. */
export async function everyPart(client: PartsApiClient, call: CallOptions, view?: "IP_OWNER" | "CONSUMER") {
  const parts: Part[] = [];
  for (let page = 1; ; page++) {
    const { items, hasMore } = await client.call("listParts", { query: { page, pageSize: 50, view } }, call);
    parts.push(...items);
    if (!hasMore) return parts;
  }
}

/**
 * A search result without its counts: what the parts read so far matched depends on how far a
 * process has read, so two processes answering the same page may count differently.
 */
export function withoutCounts<T extends { summary?: string; matchedSoFar?: number; total?: number }>(
  result: T,
): Omit<T, "summary" | "matchedSoFar" | "total"> {
  const { summary: _summary, matchedSoFar: _matched, total: _total, ...rest } = result;
  return rest;
}
