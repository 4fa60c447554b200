// `parts-mcp --http`: MCP over Streamable HTTP at /mcp for both protocol eras, stateless (no
// session ids, so any replica can answer any request), with /healthz for load balancers. One API
// client and one reference cache serve every request; each request gets a server of its own,
// bound to its upstream token (the server's own, or the client's X-Parts-Api-Token).
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Catalogue } from "../catalogue";
import {
  type ApiConfig,
  type CacheConfig,
  ConfigError,
  HTTP_ENV,
  type HttpConfig,
  isLoopbackHost,
} from "../config";
import type { Logger } from "../log";
import { openRuntime } from "../runtime";
import { createServer, type ServerOptions } from "../server";
import { VERSION } from "../version";
import { AccessControl, OriginGuard, TOKEN_SOURCE } from "./access";
import { MCP_PATH, McpHttpHandler } from "./handler";

export { HEALTH_PATH, MCP_PATH } from "./handler";

/** Per-user tokens kept for redaction in the logs (the most recent ones). */
const REMEMBERED_TOKENS = 1_000;
/** Longer than the idle time-out of load balancers (commonly 60 s), so they close first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/**
 * The upstream token of a per-user server's own requests. Every request brings its own token;
 * this one exists so that a request that somehow went out without one fails (401) instead of
 * using a token that is not the caller's.
 */
const NO_SERVER_TOKEN = "parts-mcp-per-user-mode-has-no-server-token";

export type HttpServerOptions = Omit<ServerOptions, "token" | "tokenSource"> & {
  http: HttpConfig;
  /** Receives each per-user token seen (to redact it from logs). */
  rememberToken?(token: string): void;
};

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:8788/mcp. */
  url: string;
  /** Calls accepted and not yet answered. */
  readonly inFlight: number;
  /**
   * Refuses new requests with 503 and waits for those in flight (at most `timeoutMs`), then
   * closes every connection. Resolves to false when calls had to be abandoned.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

/** Starts the HTTP server in this process (the CLI does; so can a benchmark that wants it in-process). */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { http, rememberToken = () => {}, ...serverOptions } = options;
  const perUser = http.access.perUser;
  const handler = new McpHttpHandler({
    guard: new OriginGuard(http),
    access: new AccessControl(http.access),
    createServer: (token) =>
      createServer({
        ...serverOptions,
        ...(token !== undefined && { token, tokenSource: TOKEN_SOURCE }),
      }),
    maxBodyBytes: http.maxBodyBytes,
    logger: options.logger,
    rememberToken: perUser ? rememberToken : () => {},
  });

  const server = createHttpServer({ noDelay: true }, handler.handle);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  await listen(server, http);
  const { port } = server.address() as AddressInfo;

  let shuttingDown: Promise<boolean> | undefined;
  return {
    url: `http://${urlHost(http.host)}:${port}${MCP_PATH}`,
    get inFlight() {
      return handler.inFlight;
    },
    shutdown(timeoutMs) {
      shuttingDown ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const drained = await Promise.race([
          handler.drain().then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), timeoutMs);
          }),
        ]);
        clearTimeout(timer);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        return drained;
      })();
      return shuttingDown;
    },
  };
}

async function listen(server: Server, http: HttpConfig): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL") {
        const why =
          error.code === "EADDRINUSE"
            ? `port ${http.port} is already in use`
            : error.code === "EACCES"
              ? `listening on port ${http.port} is not permitted`
              : `${http.host} is not an address of this machine`;
        reject(
          new ConfigError(
            `Cannot listen on ${http.host}:${http.port}: ${why}; choose another with ${error.code === "EADDRNOTAVAIL" ? HTTP_ENV.host : HTTP_ENV.port}.`,
            error.code === "EADDRNOTAVAIL" ? HTTP_ENV.host : HTTP_ENV.port,
          ),
        );
      } else {
        reject(error);
      }
    });
    server.listen(http.port, http.host, () => resolve());
  });
}

function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

export interface HttpRunOptions {
  api: ApiConfig;
  cache: CacheConfig;
  http: HttpConfig;
  catalogue: Catalogue;
}

/** The `parts-mcp --http` process: serves until SIGTERM or SIGINT, then drains and exits. */
export async function runHttpServer({ api, cache, http, catalogue }: HttpRunOptions): Promise<void> {
  const recent = new Set<string>();
  const rememberToken = (token: string) => {
    if (recent.has(token)) return;
    recent.add(token);
    if (recent.size > REMEMBERED_TOKENS) recent.delete(recent.values().next().value as string);
  };
  const perUser = http.access.perUser;
  const { logger, upstream } = await openRuntime(
    perUser ? { ...api, token: NO_SERVER_TOKEN } : api,
    cache,
    [...http.access.keys, ...(api.token ? [api.token] : [])],
    () => recent,
  );
  if (perUser && api.token !== undefined) {
    logger.warn("PARTS_API_TOKEN is not used: with per-user access every request brings its own token");
  }
  warnAboutExposure(http, logger);

  let running: RunningHttpServer;
  try {
    running = await startHttpServer({
      api: upstream.api,
      reference: upstream.reference,
      catalogue,
      connection: upstream.connection,
      timeoutMs: api.timeoutMs,
      cacheTtlMs: cache.ttlMs,
      logger,
      http,
      rememberToken,
    });
  } catch (error) {
    await upstream.close().catch(() => {});
    throw error;
  }
  const stop = async (reason: string) => {
    logger.info("stopping: finishing the calls in flight, refusing new ones", {
      reason,
      inFlight: running.inFlight,
      timeoutMs: http.shutdownTimeoutMs,
    });
    const drained = await running.shutdown(http.shutdownTimeoutMs);
    if (!drained) logger.warn("calls still in flight were abandoned", { timeoutMs: http.shutdownTimeoutMs });
    await upstream.close().catch(() => {});
    logger.info("stopped", { reason });
    process.exit(drained ? 0 : 1);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  // Only once the signals are handled: whoever waits for this line may send SIGTERM at once.
  logger.info(`parts-mcp ${VERSION} ready on ${running.url}`, {
    url: running.url,
    environment: upstream.connection.environment,
    baseUrl: upstream.connection.baseUrl,
    ...(upstream.connection.embedded && { note: "embedded sample API" }),
    access: new AccessControl(http.access).mode,
  });
}

function warnAboutExposure(http: HttpConfig, logger: Logger): void {
  const loopback = isLoopbackHost(
    http.host.includes(":") && !http.host.startsWith("[") ? `[${http.host}]` : http.host,
  );
  if (!loopback && !http.access.shared && !http.access.perUser) {
    logger.warn("serving without access control on a non-loopback address (PARTS_MCP_AUTH=none)", {
      host: http.host,
    });
  }
  if (http.allowedHosts === "*") {
    logger.info("Host header not checked (PARTS_MCP_ALLOWED_HOSTS=*)");
  }
}
