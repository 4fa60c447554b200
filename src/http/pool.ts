// Stateless HTTP serves every request with a server of its own, and building one (tools,
// resources, prompts) costs about half a millisecond: more than the rest of a cached call. So a
// server that has answered a request is closed (its transport goes) and kept, idle, for the next
// request with the same token. A server is bound to one token (it sends that token upstream), so
// the pool is partitioned by token: a server is only ever handed to requests bearing its token.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export class ServerPool {
  readonly #create: (token: string | undefined) => McpServer;
  readonly #maxIdle: number;
  /** Idle servers by token ("" for the server's own), least recently used token first. */
  readonly #idle = new Map<string, McpServer[]>();
  #idleCount = 0;

  constructor(create: (token: string | undefined) => McpServer, maxIdle: number) {
    this.#create = create;
    this.#maxIdle = maxIdle;
  }

  /** An idle server for this token, or a new one. The caller owns it until `release`. */
  acquire(token: string | undefined): McpServer {
    const key = token ?? "";
    const idle = this.#idle.get(key);
    const server = idle?.pop();
    if (server === undefined) return this.#create(token);
    this.#idleCount--;
    if (idle?.length === 0) this.#idle.delete(key);
    return server;
  }

  /** A new server that will not be pooled (one that keeps state of its client, e.g. after initialize). */
  create(token: string | undefined): McpServer {
    return this.#create(token);
  }

  /** Takes back a server that is closed (not connected to a transport) and has no call running. */
  release(token: string | undefined, server: McpServer): void {
    const key = token ?? "";
    let idle = this.#idle.get(key);
    if (idle === undefined) idle = [];
    else this.#idle.delete(key); // re-inserted below: most recently used last
    this.#idle.set(key, idle);
    idle.push(server);
    this.#idleCount++;
    while (this.#idleCount > this.#maxIdle) {
      const [oldestKey, oldest] = this.#idle.entries().next().value as [string, McpServer[]];
      oldest.shift();
      this.#idleCount--;
      if (oldest.length === 0) this.#idle.delete(oldestKey);
    }
  }

  get idle(): number {
    return this.#idleCount;
  }
}
