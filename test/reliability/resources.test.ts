// Resource limits of the server process: memory stays bounded while oversized answers are refused
// again and again (the client stops reading at the size limit and drops what it read) and while
// many calls run at once; the process never dies of an unhandled rejection (it runs with
// --unhandled-rejections=strict, so one would kill it, and assertHealthy would see it gone).
//
// The server runs with a small V8 heap (--max-old-space-size): with the default one, V8 lets RSS
// grow lazily long before it collects, which hides nothing but proves nothing either. With a
// small heap, live memory that kept growing (a leak) would end in an out-of-memory crash.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { textOf } from "../support/mcp-server";
import {
  CRASH_TEXT,
  errorText,
  eventually,
  rssBytes,
  somePart,
  startWatchedServer,
  type WatchedServer,
} from "./support";

const MiB = 1024 * 1024;
const HEAP_MIB = 40;

let server: WatchedServer;
let part: Part;

beforeAll(async () => {
  server = await startWatchedServer({
    env: {
      PARTS_MCP_LOG_LEVEL: "info",
      NODE_OPTIONS: `--unhandled-rejections=strict --max-old-space-size=${HEAP_MIB}`,
    },
  });
  part = somePart(server.api);
});
afterAll(async () => {
  await server.assertHealthy();
  await server.close();
});

/** Runs `work` while sampling the server's RSS every 10 ms; returns the highest sample. */
async function peakRss(work: () => Promise<void>): Promise<number> {
  let peak = rssBytes(server.pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes(server.pid));
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, rssBytes(server.pid));
}

async function warmUp() {
  // Load every code path once (and one oversized answer), so that the baseline includes them.
  server.api.faults.add({
    endpoint: "listParts",
    action: { kind: "malformed", variant: "oversized" },
    times: 1,
  });
  await server.call("list_parts", { pageSize: 50 });
  for (let i = 0; i < 20; i++) await server.call("get_part", { id: part.id });
}

describe("memory", () => {
  it("stays within +50 MiB while 40 oversized answers (16.5 MiB each) are refused", async () => {
    await warmUp();
    const baseline = rssBytes(server.pid);
    server.api.faults.add({ endpoint: "getPart", action: { kind: "malformed", variant: "oversized" } });
    const closedBefore = server.api.stats.closedEarly("getPart");
    const peak = await peakRss(async () => {
      for (let i = 0; i < 40; i++) {
        expect(errorText(await server.call("get_part", { id: part.id }))).toMatch(/too large/);
      }
    });
    server.api.faults.clear();
    // The answers were cut off, not read whole (a server that read them would leave the API
    // writing to the end: none cut off). The API notices a closed connection only when its next
    // write fails, which a busy machine can delay past any deadline: hence nine in ten, not all.
    const cutOff = () => server.api.stats.closedEarly("getPart") - closedBefore;
    await eventually(() => cutOff() >= 40, 60_000);
    expect(cutOff()).toBeGreaterThanOrEqual(36);
    expect(peak - baseline, `RSS ${Math.round(baseline / MiB)} → ${Math.round(peak / MiB)} MiB`).toBeLessThan(
      50 * MiB,
    );
  }, 120_000);

  const BURSTS = 4;
  it(`stays within +50 MiB with 200 calls in flight at once, ${BURSTS} bursts (no leak)`, async () => {
    await warmUp();
    const baseline = rssBytes(server.pid);
    const afterBurst: number[] = [];
    const peak = await peakRss(async () => {
      for (let burst = 0; burst < BURSTS; burst++) {
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            i % 3 === 0
              ? server.call("list_parts", { pageSize: 20, page: (i % 7) + 1 })
              : i % 3 === 1
                ? server.call("describe_part", { id: part.id })
                : server.call("get_part", { id: part.id }),
          ),
        );
        for (const result of results) expect(result.isError, textOf(result)).toBeFalsy();
        afterBurst.push(rssBytes(server.pid));
      }
    });
    const mib = (bytes: number) => Math.round(bytes / MiB);
    const story = `RSS ${mib(baseline)} MiB → peak ${mib(peak)}, after each burst ${afterBurst.map(mib).join(", ")}`;
    expect(peak - baseline, story).toBeLessThan(50 * MiB);
    // Later bursts do the same work as the first: memory that kept growing would be a leak.
    expect((afterBurst.at(-1) as number) - (afterBurst[0] as number), story).toBeLessThan(20 * MiB);
  }, 120_000);
});

describe("no unhandled rejection, whatever fails at once", () => {
  it("survives many concurrent calls meeting every kind of failure", async () => {
    const { faults } = server.api;
    faults.add({ endpoint: "getPart", action: { kind: "drop" }, probability: 0.3 });
    faults.add({
      endpoint: "getPart",
      action: { kind: "malformed", variant: "reset-mid-body" },
      probability: 0.3,
    });
    faults.add({
      endpoint: "batchGetStandards",
      action: { kind: "malformed", variant: "truncated-json" },
      probability: 0.5,
    });
    faults.add({ endpoint: "getProcess", action: { kind: "status", status: 500 }, probability: 0.5 });
    faults.add({
      endpoint: "getMaterial",
      action: { kind: "malformed", variant: "oversized" },
      probability: 0.3,
    });
    faults.add({ endpoint: "listParts", action: { kind: "malformed", variant: "html" }, probability: 0.5 });
    const controllers: AbortController[] = [];
    const calls = Array.from({ length: 120 }, (_, i) => {
      const controller = new AbortController();
      controllers.push(controller);
      const name = ["describe_part", "get_part", "list_parts"][i % 3] as string;
      const args = name === "list_parts" ? { pageSize: 50 } : { id: part.id };
      return server.client
        .callTool({ name, arguments: args }, { signal: controller.signal })
        .catch((error: unknown) => ({ cancelled: String(error) }));
    });
    // Cancel every fifth call at once, in the middle of whatever it is doing.
    setTimeout(() => {
      controllers.forEach((controller, i) => {
        if (i % 5 === 0) controller.abort("cancelled by the test");
      });
    }, 5);
    const outcomes = await Promise.all(calls);
    faults.clear();
    expect(outcomes).toHaveLength(120);
    // Alive: the process exists, answers ping and a tool call, and printed no crash.
    await server.assertHealthy();
    expect(server.died()).toBe(false);
  }, 120_000);
});

describe("the health check can fail", () => {
  it("Node's report of an unhandled rejection is what assertHealthy looks for", () => {
    const child = spawnSync(
      process.execPath,
      ["--unhandled-rejections=strict", "-e", "Promise.reject(new Error('boom'))"],
      { encoding: "utf8", timeout: 10_000 },
    );
    expect(child.status).not.toBe(0);
    expect(child.stderr).toMatch(CRASH_TEXT);
  });

  it("a server that died is noticed", async () => {
    const doomed = await startWatchedServer({ sharedApi: server.api });
    try {
      process.kill(doomed.pid, "SIGKILL");
      await eventually(() => doomed.died());
      await expect(doomed.assertHealthy()).rejects.toThrow(/exited|closed|false/);
    } finally {
      await doomed.close().catch(() => {});
    }
  });
});
