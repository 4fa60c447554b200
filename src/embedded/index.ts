// The embedded Parts API: a faithful, stateful implementation of the Parts and Sourcing
// Reference API (shared/spec/parts-api.md with the decisions of shared/spec/decisions.md) over
// real HTTP on loopback, with deterministic sample data, demo tokens for three organisations and
// fault injection. It is the default environment of the MCP server and the upstream of the tests
// and benchmarks.
import { createServer, STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { ORGS } from "./data/reference";
import { errorJson } from "./errors";
import { DEFAULT_FAULT_SEED, type FaultController, FaultInjector, type FaultRule } from "./faults";
import { Router } from "./router";
import { Pipeline } from "./server";
import { type ApiStats, StatsRecorder } from "./stats";
import { Store } from "./store";

export type { EndpointName, FaultAction, FaultController, FaultRule, MalformedVariant } from "./faults";
export { MALFORMED_VARIANTS } from "./faults";
export type { ApiStats } from "./stats";
export type { CreateExtras, Dropdown, ImportedFile, Org, PartView } from "./store";
export { Store } from "./store";

export interface DemoAccount {
  token: string;
  orgId: string;
  orgName: string;
}

export interface EmbeddedApiOptions {
  /** Default "127.0.0.1". */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** "sample" (default) or "large": the sample data plus a generated catalogue. */
  catalogue?: "sample" | "large";
  /** Size of the generated catalogue, default 100_000. */
  largeCatalogueSize?: number;
  /** Fault rules active from the start (more can be added through `faults`). */
  faults?: FaultRule[];
  /** Largest accepted request body, default 1 MiB; larger ones get a 413. */
  maxBodyBytes?: number;
  /** Seed of the fault-probability PRNG (default fixed), for reproducible flaky runs. */
  faultSeed?: number;
}

export interface EmbeddedApi {
  /** Base URL, e.g. "http://127.0.0.1:41234" (no trailing slash). */
  url: string;
  /** Demo tokens, one per organisation (three organisations). */
  accounts: DemoAccount[];
  /** accounts[0].token. */
  demoToken: string;
  faults: FaultController;
  stats: ApiStats;
  /** Read access to the state, for tests. */
  store: Store;
  /** Closes the server and every connection (keep-alive and in-flight) at once. */
  close(): Promise<void>;
}

/** The demo accounts: fixed tokens, documented in data/reference.ts. */
export const DEMO_ACCOUNTS: readonly DemoAccount[] = ORGS.map((o) => ({
  token: o.token,
  orgId: o.id,
  orgName: o.name,
}));

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_LARGE_SIZE = 100_000;
/** Longer than the idle time-out of common clients (undici: 4 s), so the client closes first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/** Answers a request that Node's HTTP parser rejected (bad framing, headers too large) in the Error shape. */
function onClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const message =
    status === 431
      ? "request headers too large"
      : status === 408
        ? "request timed out"
        : "malformed HTTP request";
  const body = errorJson(status, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startEmbeddedApi(options: EmbeddedApiOptions = {}): Promise<EmbeddedApi> {
  const host = options.host ?? "127.0.0.1";
  const store = new Store({
    largeCatalogueSize:
      options.catalogue === "large" ? (options.largeCatalogueSize ?? DEFAULT_LARGE_SIZE) : 0,
  });
  const faults = new FaultInjector(options.faultSeed ?? DEFAULT_FAULT_SEED, options.faults ?? []);
  const stats = new StatsRecorder();
  const pipeline = new Pipeline({
    store,
    faults,
    stats,
    router: new Router(),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  });

  const server = createServer({ noDelay: true }, pipeline.onRequest);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  server.on("clientError", onClientError);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${port}`;
  pipeline.port = port;
  pipeline.baseUrl = url;

  let closing: Promise<void> | undefined;
  const accounts = DEMO_ACCOUNTS.map((a) => ({ ...a }));
  return {
    url,
    accounts,
    demoToken: (accounts[0] as DemoAccount).token,
    faults,
    stats,
    store,
    close() {
      if (closing === undefined) {
        pipeline.closing = true;
        closing = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
      }
      return closing;
    },
  };
}
