// What both transports open before serving: the logger (which redacts the configured token and
// `secrets`, and learns per-user tokens as the API accepts them) and the upstream API, embedded
// or remote.

import type {
  ApiConfig,
  CacheConfig,
  ConfirmWrites,
  LimitsConfig,
  SearchConfig,
  TelemetryConfig,
} from "../config";
import { MemoryLedger } from "../confirm/ledger";
import { randomKey } from "../confirm/state";
import { captureConsole, createLogger, type Logger } from "../log/logger";
import type { Catalogue } from "../mcp/catalogue";
import type { ServerOptions } from "../mcp/scope";
import { startTelemetry } from "../telemetry";
import { openUpstream, type Upstream } from "./upstream";
import { checkUpstreamSoon } from "./upstream-check";
import { VERSION } from "./version";

/** Everything both transports are started with, read and checked before anything starts (cli.ts). */
export interface ServingConfig {
  api: ApiConfig;
  cache: CacheConfig;
  search: SearchConfig;
  limits: LimitsConfig;
  catalogue: Catalogue;
  /** Spans and metrics, when configured (nothing of OpenTelemetry is loaded otherwise). */
  telemetry?: TelemetryConfig;
  /**
   * Check a remote API's URL and token once, a moment after the start (./upstream-check.ts).
   * Off when there is no token of the server's own to check (per-user HTTP access).
   */
  checkUpstream?: boolean;
  /** Whether writes are confirmed by the person where the client can ask (PARTS_MCP_CONFIRM_WRITES). */
  confirmWrites: ConfirmWrites;
}

export interface Runtime {
  logger: Logger;
  upstream: Upstream;
  /** What every server instance of the process shares; a transport adds how it is reached. */
  shared: Omit<ServerOptions, "mode" | "token">;
}

export async function openRuntime(
  {
    api: config,
    cache,
    search,
    catalogue,
    checkUpstream,
    telemetry,
    confirmWrites,
  }: Omit<ServingConfig, "limits">,
  secrets: readonly string[] = [],
): Promise<Runtime> {
  const logger = createLogger({
    level: config.logLevel,
    secrets: [...(config.token ? [config.token] : []), ...secrets],
  });
  captureConsole(logger);
  const upstream = await openUpstream(config, cache, logger, {
    pagesPerCall: search.pagesPerCall,
    maxBytes: search.indexBudgetBytes,
  });
  logger.addSecret(upstream.token);
  const running = await startTelemetry(telemetry, {
    search: upstream.search,
    version: VERSION,
    log: (level, msg, fields) => logger[level](msg, fields),
  });
  if (running) {
    // Spans and metrics still buffered leave before the process does.
    const closeUpstream = upstream.close.bind(upstream);
    upstream.close = async () => {
      await closeUpstream();
      await running.shutdown();
    };
  }
  if (checkUpstream && config.environment !== "local") void checkUpstreamSoon(upstream.api, config, logger);
  const { api, reference, search: partSearch, seen, connection } = upstream;
  return {
    logger,
    upstream,
    shared: {
      api,
      reference,
      search: partSearch,
      seen,
      connection,
      catalogue,
      timeoutMs: config.timeoutMs,
      cacheTtlMs: cache.ttlMs,
      logger,
      // One process serves every round of a confirmation here: its own key and ledger are enough
      // (the oauth mode, whose replicas share a database, brings both from there: src/http/).
      ...(confirmWrites === "auto" && { confirm: { key: randomKey(), ledger: new MemoryLedger() } }),
    },
  };
}
