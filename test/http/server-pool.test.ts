// The pool of server instances behind the SDK's per-request handler (src/http/server-pool.ts), with
// SDK clients of both eras through `createMcpHandler` in this process: an instance serves request
// after request of its own token and era, never another token's or era's, a 2025 instance that
// saw `initialize` is not kept, and idle ones go after their time.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type AuthInfo, createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { ServerPool } from "../../src/http/server-pool";

/**
 * A pool whose instances have two tools: `who`, which says which build and token it is, and
 * `slow`, which returns only when the test lets it (`release`), so that a handler can outlive its
 * request. `settled` counts each instance's running handlers, as src/mcp/run-tool.ts does.
 */
function pooled(options: { maxIdle?: number; idleMs?: number } = {}) {
  const built: (string | undefined)[] = [];
  const running = new Map<McpServer, { count: number; waiting: (() => void)[] }>();
  let release = () => {};
  let started = () => {};
  const slowStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const slowReleased = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pool = new ServerPool({
    build: (token) => {
      const instance = built.push(token);
      const server = new McpServer({ name: "pooled", version: "1.0.0" });
      const state = { count: 0, waiting: [] as (() => void)[] };
      running.set(server, state);
      server.registerTool("who", { description: "Which instance answers" }, async () => ({
        content: [{ type: "text", text: `${instance} ${token ?? "own"}` }],
      }));
      server.registerTool("slow", { description: "Returns when released" }, async () => {
        state.count++;
        started();
        await slowReleased;
        if (--state.count === 0) for (const settled of state.waiting.splice(0)) settled();
        return { content: [{ type: "text", text: "late" }] };
      });
      return server;
    },
    maxIdle: options.maxIdle ?? 64,
    idleMs: options.idleMs ?? 60_000,
    settled: (server) => {
      const state = running.get(server);
      if (!state || state.count === 0) return Promise.resolve();
      return new Promise((resolve) => state.waiting.push(resolve));
    },
  });
  const handler = createMcpHandler(({ authInfo, era }) => pool.take(authInfo?.token, era));
  const client = async (era: "2025" | "2026", token?: string) => {
    const authInfo: AuthInfo | undefined = token ? { token, clientId: "test", scopes: [] } : undefined;
    const sdk = new Client(
      { name: "pool-test", version: "1.0.0" },
      era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
    );
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL("http://pool.test/mcp"), {
        fetch: (url, init) => handler.fetch(new Request(url, init), authInfo ? { authInfo } : {}),
      }),
    );
    return {
      slow: (signal: AbortSignal) => sdk.callTool({ name: "slow", arguments: {} }, { signal }),
      who: async () => {
        const result = await sdk.callTool({ name: "who", arguments: {} });
        return (result.content as { text: string }[])[0]?.text as string;
      },
      close: () => sdk.close(),
    };
  };
  return { pool, built, client, slowStarted, release: () => release(), close: () => handler.close() };
}

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup) await step();
  cleanup = [];
});

describe("the server pool", () => {
  it("serves request after request of one token with one instance (2026-07-28)", async () => {
    const { built, client, pool, close } = pooled();
    const c = await client("2026");
    cleanup.push(c.close, close);
    const answers = new Set<string>();
    for (let i = 0; i < 20; i++) answers.add(await c.who());
    // server/discover, then 20 calls: all on the first instance.
    expect(built).toEqual([undefined]);
    expect([...answers]).toEqual(["1 own"]);
    expect(pool.idle).toBe(1);
  });

  it("builds no more instances than requests were in flight at once", async () => {
    const { built, client, close } = pooled();
    const c = await client("2026");
    cleanup.push(c.close, close);
    for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 8 }, () => c.who()));
    expect(built.length).toBeGreaterThan(1);
    expect(built.length).toBeLessThanOrEqual(8);
  });

  it("never hands one token's instance to another token", async () => {
    const { built, client, close } = pooled();
    const a = await client("2026", "token-a");
    const b = await client("2026", "token-b");
    cleanup.push(a.close, b.close, close);
    for (let i = 0; i < 10; i++) {
      const [fromA, fromB] = await Promise.all([a.who(), b.who()]);
      expect(fromA).toMatch(/ token-a$/);
      expect(fromB).toMatch(/ token-b$/);
    }
    expect(new Set(built)).toEqual(new Set(["token-a", "token-b"]));
  });

  it("keeps the eras apart, and drops a 2025 instance that answered initialize", async () => {
    const { built, client, pool, close } = pooled();
    const modern = await client("2026");
    cleanup.push(modern.close, close);
    await modern.who();
    const builtBefore = built.length;
    const legacy = await client("2025");
    cleanup.push(legacy.close);
    // initialize's instance was not kept: each 2025 call after it is served by a kept one of its own era.
    const first = await legacy.who();
    const second = await legacy.who();
    expect(second).toBe(first);
    expect(built.length).toBe(builtBefore + 2);
    expect(await modern.who()).toMatch(/^1 /);
    expect(pool.idle).toBe(2);
  });

  it("makes room when full: the instance idle longest goes, so another token still keeps its own", async () => {
    const { built, client, pool, close } = pooled({ maxIdle: 4 });
    const a = await client("2026", "token-a");
    cleanup.push(a.close, close);
    await Promise.all(Array.from({ length: 4 }, () => a.who()));
    expect(pool.idle).toBe(4);
    const b = await client("2026", "token-b");
    cleanup.push(b.close);
    const first = await b.who();
    for (let i = 0; i < 5; i++) expect(await b.who()).toBe(first);
    expect(built.filter((token) => token === "token-b")).toHaveLength(1);
    expect(pool.idle).toBe(4);
  });

  it("keeps an instance whose request ended only once its handler has returned", async () => {
    const { built, client, pool, slowStarted, release, close } = pooled();
    const c = await client("2026");
    cleanup.push(c.close, close);
    expect(await c.who()).toBe("1 own");
    // The client gives up on a slow call: its request ends while the handler still runs.
    const abort = new AbortController();
    const slow = c.slow(abort.signal).catch((error: Error) => error);
    await slowStarted;
    abort.abort();
    expect(await slow).toBeInstanceOf(Error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Its instance is not handed out while the handler runs: the next call gets another one.
    expect(await c.who()).toBe("2 own");
    expect(built).toHaveLength(2);
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pool.idle).toBe(2);
  });

  it("keeps at most maxIdle instances, and lets idle ones go after idleMs", async () => {
    const { client, pool, close } = pooled({ maxIdle: 3, idleMs: 100 });
    const c = await client("2026");
    cleanup.push(c.close, close);
    await Promise.all(Array.from({ length: 10 }, () => c.who()));
    expect(pool.idle).toBeLessThanOrEqual(3);
    expect(pool.idle).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(pool.idle).toBe(0);
  });
});
