// The embedded Parts API: a faithful, stateful implementation of the Parts and Sourcing
// Reference API (shared/spec/parts-api.md with the decisions of shared/spec/decisions.md) over
// real HTTP on loopback, with deterministic sample data and demo tokens for three organisations.
// It is the default environment of the MCP server and the upstream of the tests and benchmarks;
// tests and benchmarks start it through testing/index.ts, which adds fault injection and request
// statistics through a RequestHook, so that neither is in the product bundle.

import { createServer, STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { urlHost } from "../net/hosts";
import { ORGS } from "./data/reference";
import { errorJson } from "./errors";
import { Router } from "./router";
import { Pipeline, type RequestHook } from "./server";
import { Store } from "./store";

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
  /** Largest accepted request body, default 1 MiB; larger ones get a 413. */
  maxBodyBytes?: number;
  /** The state to serve; default a new Store of the chosen catalogue. */
  store?: Store;
  /** Wraps the handling of every request (the test entry's faults and statistics). */
  hook?: RequestHook;
}

export interface EmbeddedApi {
  /** Base URL, e.g. "http://127.0.0.1:41234" (no trailing slash). */
  url: string;
  /** Demo tokens, one per organisation (three organisations). */
  accounts: DemoAccount[];
  /** accounts[0].token. */
  demoToken: string;
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

/** Number of generated parts the options ask for (0: the sample data only). */
export function largeCatalogueSize(
  options: Pick<EmbeddedApiOptions, "catalogue" | "largeCatalogueSize">,
): number {
  return options.catalogue === "large" ? (options.largeCatalogueSize ?? DEFAULT_LARGE_SIZE) : 0;
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
  const pipeline = new Pipeline({
    store: options.store ?? new Store({ largeCatalogueSize: largeCatalogueSize(options) }),
    router: new Router(),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    hook: options.hook,
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
  pipeline.baseUrl = url;

  let closing: Promise<void> | undefined;
  const accounts = DEMO_ACCOUNTS.map((a) => ({ ...a }));
  return {
    url,
    accounts,
    demoToken: (accounts[0] as DemoAccount).token,
    close() {
      if (closing === undefined) {
        closing = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
      }
      return closing;
    },
  };
}
