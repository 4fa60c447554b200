// Progress notifications are bounded per request, whatever the call's length: a search that reads
// about 180 pages sends at most MAX_PROGRESS_NOTIFICATIONS of them (each page's count merged into the
// next), still in order and still ending on the parts scanned, in both protocol eras.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PROGRESS_NOTIFICATIONS } from "../../src/mcp/run-tool";
import { connectInProcess, ERAS, type InProcessServer } from "../support/in-process";

describe.each(ERAS)("progress of a long search (%s era)", (era) => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await connectInProcess({
      era,
      api: { catalogue: "large", largeCatalogueSize: 9_000 },
      timeoutMs: 30_000,
    });
  }, 30_000);
  afterAll(() => server?.close());

  it("sends a bounded number of notifications, ending on the parts scanned", async () => {
    const progress: number[] = [];
    const result = (await server.client.callTool(
      { name: "search_parts", arguments: { text: "no such word anywhere" } },
      { onprogress: (update) => progress.push(update.progress), timeout: 30_000 },
    )) as CallToolResult;
    const scanned = (result.structuredContent as { scanned: number }).scanned;
    // Hundreds of pages, one progress update each before merging.
    expect(scanned).toBeGreaterThan(6_500);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.length).toBeLessThanOrEqual(MAX_PROGRESS_NOTIFICATIONS);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(scanned);
  }, 30_000);
});
