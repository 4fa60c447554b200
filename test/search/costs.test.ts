// What one request may cost whatever the server has seen (issue 27, R1 and R5), through the real
// stack: a completion after thousands of part ids were shown, and a did-you-mean for an unknown
// part id over an index of 21,000 parts, each bounded in time while another client's call waits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { connectInProcess, type InProcessServer } from "../support/in-process";
import { textOf } from "../support/mcp-server";

/** Far above what these requests cost now (a few ms), far below what they cost before (0.4–24 s). */
const BOUND_MS = 250;

let api: TestApi;
let server: InProcessServer;
let other: InProcessServer;
/** The ids shown, oldest first. */
const shown: string[] = [];

beforeAll(async () => {
  api = await startTestApi({ catalogue: "large", largeCatalogueSize: 21_000 });
  server = await connectInProcess({ sharedApi: api, searchPagesPerCall: 600, timeoutMs: 60_000 });
  other = await connectInProcess({ sharedApi: api });
  // 5,000 part ids shown to the token (each list_parts page records its parts), and the whole
  // catalogue read into the search index.
  for (let page = 1; page <= 100; page++) {
    const listed = await server.call("list_parts", { page, pageSize: 50 });
    shown.push(...(listed.structuredContent as { items: { id: string }[] }).items.map((part) => part.id));
  }
  const read = await server.call("search_parts", { text: "no such word" });
  expect((read.structuredContent as { complete: boolean }).complete).toBe(true);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await other?.close();
  await api?.close();
});

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

describe("the cost of one request is bounded by what it sends", () => {
  it("completes a part id after 5,000 were shown, with a short or a huge value, in milliseconds (R1)", async () => {
    const complete = (value: string) =>
      server.client.complete({
        ref: { type: "ref/resource", uri: "parts://parts/{id}" },
        argument: { name: "id", value },
      });
    for (const value of ["prt_ab", "prtxx9", "x".repeat(100_000), Array(20_000).fill("ab").join(" ")]) {
      await complete(value); // the first may fold the candidates
      const { ms } = await timed(() => complete(value));
      expect(ms, `${value.length} characters`).toBeLessThan(BOUND_MS);
    }
  });

  it("offers the most recently shown ids, and compares only the 2,000 most recent", async () => {
    const offered = async (id: string) =>
      (
        await server.client.complete({
          ref: { type: "ref/resource", uri: "parts://parts/{id}" },
          argument: { name: "id", value: id },
        })
      ).completion.values;
    expect(shown).toHaveLength(5_000);
    expect(await offered(shown.at(-1) as string)).toContain(shown.at(-1));
    expect(await offered(shown[0] as string)).not.toContain(shown[0]);
  });

  it("names the closest part ids to an unknown one in milliseconds, while another client's call goes on (R5)", async () => {
    const miss = () => server.call("get_part", { id: "prt_zzzzzzzzzz" });
    await miss();
    const [{ ms }, standard] = await Promise.all([
      timed(miss),
      timed(() => other.call("get_standard", { code: "AMS 4928" })),
    ]);
    expect(ms).toBeLessThan(BOUND_MS);
    expect(standard.ms).toBeLessThan(BOUND_MS * 2);
    const near = await server.call("get_part", { id: "prt_axae90esyq" });
    expect(textOf(near)).toMatch(/not found/i);
  });
});
