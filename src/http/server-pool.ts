// MCP server instances kept between HTTP requests: one request's instance, once the SDK has closed
// it, serves a later request of the same upstream token in the same protocol era.
//
// The SDK's per-request handler asks its factory for an instance per request. Building ours (some
// twenty tools, eight resource templates, the prompts' schemas: about 50 KiB) cost more CPU than
// the rest of a get_part, and under concurrency its garbage outlived the young generation: with a
// fresh instance each time the HTTP server answered half the calls of a one-tool server
// (docs/performance.md). An instance keeps no state of a request once closed: the SDK clears its
// transport, pending requests and handlers' signals, and a 2026-07-28 request sets the protocol
// version and the client's identity again from its own envelope. What could outlive a request
// stays with the same person: an instance is never handed to another token, nor to the other era,
// and a 2025 instance that saw `initialize` (which pins a version and a client) is not kept. An
// instance is kept only once its handlers have returned, so that one still unwinding after its
// client went away cannot notify a later request.
import type { McpServer } from "@modelcontextprotocol/server";

export type Era = "legacy" | "modern";

export interface ServerPoolOptions {
  /** Builds a new instance for `token` (undefined: the server's own token). */
  build(token: string | undefined): McpServer;
  /** Idle instances kept at most, over all tokens: past it, the one idle longest goes. */
  maxIdle: number;
  /** An instance idle this long is dropped (its memory, and its token, go). */
  idleMs: number;
  /** Resolves once the instance's handlers have all returned (a closed request's may be unwinding). */
  settled(server: McpServer): Promise<void>;
}

export class ServerPool {
  readonly #options: ServerPoolOptions;
  /** Idle instances by era and token, the most recently closed last. */
  readonly #idle = new Map<string, McpServer[]>();
  /** Every idle instance with its key and when it was closed, the one idle longest first. */
  readonly #byAge = new Map<McpServer, { key: string; since: number }>();
  #sweeper: NodeJS.Timeout | undefined;
  #cleared = false;

  constructor(options: ServerPoolOptions) {
    this.#options = options;
  }

  /** Idle instances held now. */
  get idle(): number {
    return this.#byAge.size;
  }

  /** An instance for one request: an idle one of this token and era, or a new one. */
  take(token: string | undefined, era: Era): McpServer {
    const key = keyOf(token, era);
    const stack = this.#idle.get(key);
    const idle = stack?.pop();
    if (idle) {
      if (stack?.length === 0) this.#idle.delete(key);
      this.#byAge.delete(idle);
      return idle;
    }
    const server = this.#options.build(token);
    server.server.onclose = () => this.#release(server, key, era);
    return server;
  }

  /** Drops every idle instance (at shutdown). */
  clear(): void {
    this.#cleared = true;
    this.#idle.clear();
    this.#byAge.clear();
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #release(server: McpServer, key: string, era: Era): void {
    if (era === "legacy" && server.server.getClientVersion() !== undefined) return;
    // Kept only once its handlers have returned: one still unwinding must not reach a later request.
    void this.#options.settled(server).then(() => this.#keep(server, key));
  }

  #keep(server: McpServer, key: string): void {
    if (this.#cleared || this.#options.maxIdle <= 0) return;
    if (this.#byAge.size >= this.#options.maxIdle) this.#drop(this.#byAge.keys().next().value as McpServer);
    const stack = this.#idle.get(key);
    if (stack) stack.push(server);
    else this.#idle.set(key, [server]);
    this.#byAge.set(server, { key, since: Date.now() });
    this.#sweeper ??= setInterval(() => this.#sweep(), this.#options.idleMs).unref();
  }

  #drop(server: McpServer): void {
    const entry = this.#byAge.get(server);
    if (!entry) return;
    this.#byAge.delete(server);
    const stack = this.#idle.get(entry.key) ?? [];
    const at = stack.indexOf(server);
    if (at !== -1) stack.splice(at, 1);
    if (stack.length === 0) this.#idle.delete(entry.key);
  }

  #sweep(): void {
    const before = Date.now() - this.#options.idleMs;
    for (const [server, { since }] of this.#byAge) {
      if (since > before) break;
      this.#drop(server);
    }
    if (this.#byAge.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
}

const keyOf = (token: string | undefined, era: Era) => `${era} ${token ?? ""}`;
