// undici's Pool, in a module of its own: the client loads it (and undici, node:http and
// node:assert with it, about 10 ms) on its first request instead of at start-up, where an MCP
// client is waiting for the server's first answer (docs/performance.md).
import { Pool } from "undici";
import { wasmLiftoffOnly } from "../v8-flags";

export function openPool(origin: string, connections: number): Pool {
  wasmLiftoffOnly();
  // Keep-alive is undici's default; no retry interceptor, no redirect interceptor.
  return new Pool(origin, { connections });
}
