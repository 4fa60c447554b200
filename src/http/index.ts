// `parts-mcp --http`: MCP over Streamable HTTP at /mcp for both protocol eras, stateless (no
// session ids, so any replica can answer any request), with /healthz for load balancers. One API
// client and one reference cache serve every request; each request gets a server of its own,
// bound to its upstream token (the server's own, or the client's X-Parts-Api-Token).
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { openRuntime, type ServingConfig } from "../app/runtime";
import { checkPersonalToken } from "../app/upstream-check";
import { VERSION } from "../app/version";
import { ConfigError, HTTP_ENV, type HttpConfig, isLoopbackHost, type LimitsConfig } from "../config";
import type { ConfirmSecrets } from "../confirm/state";
import type { Logger } from "../log/logger";
import type { ServerOptions } from "../mcp/scope";
import { createServer } from "../mcp/server";
import { explainListenError, urlHost } from "../net/hosts";
import { telemetry } from "../telemetry";
import { AccessControl, OriginGuard } from "./access";
import { ConnectionCap } from "./connections";
import { MCP_PATH, McpHttpHandler, type OAuthHooks } from "./handler";

/**
 * The upstream token of a per-user server's own requests. Every request brings its own token;
 * this one exists so that a request that somehow went out without one fails (401) instead of
 * using a token that is not the caller's.
 */
const NO_SERVER_TOKEN = "parts-mcp-per-user-mode-has-no-server-token";

type HttpServerOptions = Omit<ServerOptions, "token" | "mode"> & {
  http: HttpConfig;
  limits: LimitsConfig;
  /** The `oauth` mode's gate (src/auth/), loaded only in that mode. */
  oauth?: OAuthHooks & { confirmations: ConfirmSecrets };
};

/**
 * Connections the kernel holds until the server accepts them (Node's default is 511; the system
 * caps it at net.core.somaxconn). A flood of connections past the queue has its handshakes dropped
 * and retried, and under load some end in a reset before any answer; a deep queue lets the
 * connection cap (connections.ts) answer each one.
 */
const LISTEN_BACKLOG = 4_096;

interface RunningHttpServer {
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
async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { http, limits, oauth, ...serverOptions } = options;
  // Replicas share the oauth mode's store: a confirmation made on one is answered once on any.
  if (oauth && serverOptions.confirm) serverOptions.confirm = oauth.confirmations;
  const cap = new ConnectionCap(limits.http.maxConnections, options.logger);
  const handler = new McpHttpHandler({
    crowded: (socket) => cap.crowded(socket),
    guard: new OriginGuard(http),
    access: new AccessControl(http.access),
    createServer: (token) =>
      createServer({
        ...serverOptions,
        ...(token === undefined ? { mode: "http" } : { token, mode: "http-per-user" }),
        wireGates: true,
      }),
    catalogue: serverOptions.catalogue,
    maxBodyBytes: http.maxBodyBytes,
    maxInFlight: limits.maxInFlight,
    logger: options.logger,
    ...(oauth && { oauth }),
  });

  const server = createHttpServer(
    {
      noDelay: true,
      // Slow or idle clients cannot hold sockets: headers, the whole request and idleness each
      // have a time-out, and connections past the limit are closed as they arrive.
      headersTimeout: limits.http.headersTimeoutMs,
      requestTimeout: limits.http.requestTimeoutMs,
      keepAliveTimeout: limits.http.idleTimeoutMs,
      // Node checks the two request time-outs this often (30 s by default): four times a second
      // cuts a request within a quarter of a second of its time-out.
      connectionsCheckingInterval: 250,
      maxHeaderSize: 16 * 1024,
    },
    handler.handle,
  );
  cap.attach(server);
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
        // Stop listening at once and close the idle keep-alive connections: a balancer then
        // meets a refused connection, which it may pass to another replica (nothing was sent),
        // instead of an answer it must not repeat. The calls in flight finish.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        let timer: NodeJS.Timeout | undefined;
        const drained = await Promise.race([
          handler.drain().then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), timeoutMs);
          }),
        ]);
        clearTimeout(timer);
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
      const failure = explainListenError(error, http.host, http.port);
      if (!failure) {
        reject(error);
        return;
      }
      const setting = failure.change === "host" ? HTTP_ENV.host : HTTP_ENV.port;
      reject(
        new ConfigError(
          (name) =>
            `Cannot listen on ${http.host}:${http.port}: ${failure.reason}; choose another with ${name(setting)}.`,
          setting,
        ),
      );
    });
    server.listen({ port: http.port, host: http.host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
}

export interface HttpRunOptions extends ServingConfig {
  http: HttpConfig;
}

/** The `parts-mcp --http` process: serves until SIGTERM or SIGINT, then drains and exits. */
export async function runHttpServer(options: HttpRunOptions): Promise<void> {
  const { api, http, limits, catalogue } = options;
  const perUser = http.access.perUser || http.access.oauth !== undefined;
  // With per-user or oauth access there is no server token to check at start.
  const { logger, upstream, shared } = await openRuntime(
    { ...options, api: perUser ? { ...api, token: NO_SERVER_TOKEN } : api, checkUpstream: !perUser },
    [...http.access.keys, ...(api.token ? [api.token] : [])],
  );
  if (perUser && api.token !== undefined) {
    logger.warn("PARTS_API_TOKEN is not used: with per-user access every request brings its own token");
  }
  warnAboutExposure(http, logger);

  let running: RunningHttpServer;
  let oauth: Awaited<ReturnType<typeof import("../auth").startOAuth>> | undefined;
  try {
    if (http.access.oauth) {
      const { startOAuth } = await import("../auth");
      oauth = await startOAuth({
        config: http.access.oauth,
        logger,
        checkToken: (token) => checkPersonalToken(upstream.api, token),
        onSignIn: (outcome) => telemetry.signIn(outcome),
      });
    }
    running = await startHttpServer({ ...shared, http, limits, ...(oauth && { oauth }) });
  } catch (error) {
    await oauth?.close().catch(() => {});
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
    await oauth?.close().catch(() => {});
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
    tools: catalogue.tools.map((tool) => tool.name),
    access: new AccessControl(http.access).mode,
  });
}

function warnAboutExposure(http: HttpConfig, logger: Logger): void {
  const loopback = isLoopbackHost(http.host);
  if (!loopback && !http.access.shared && !http.access.perUser) {
    logger.warn("serving without access control on a non-loopback address (PARTS_MCP_AUTH=none)", {
      host: http.host,
    });
  }
  if (http.allowedHosts === "*") {
    logger.info("Host header not checked (PARTS_MCP_ALLOWED_HOSTS=*)");
  }
}
