// `parts-mcp`: the MCP server on stdin/stdout. Stdout carries protocol only; everything else
// goes to stderr through the logger. `openRuntime` is the start-up both transports share.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { tools as allTools } from "../tools";
import type { ToolDefinition } from "../tools/define";
import { type ApiConfig, type CacheConfig, loadApiConfig, loadCacheConfig } from "./config";
import { captureConsole, createLogger, type Logger } from "./log";
import { createServer } from "./server";
import { openUpstream, type Upstream } from "./upstream";
import { VERSION } from "./version";

export interface Runtime {
  logger: Logger;
  upstream: Upstream;
}

/**
 * The logger (which redacts the configured token, `secrets`, and whatever `moreSecrets` yields
 * when a line is written) and the upstream API, embedded or remote.
 */
export async function openRuntime(
  config: ApiConfig,
  cache: CacheConfig,
  secrets: readonly string[] = [],
  moreSecrets: () => Iterable<string> = () => [],
): Promise<Runtime> {
  const fixed = new Set<string>([...(config.token ? [config.token] : []), ...secrets]);
  const logger = createLogger({
    level: config.logLevel,
    secrets: function* () {
      yield* fixed;
      yield* moreSecrets();
    },
  });
  captureConsole(logger);
  const upstream = await openUpstream(config, cache, logger);
  fixed.add(upstream.token);
  return { logger, upstream };
}

export async function runStdioServer(
  config: ApiConfig = loadApiConfig(),
  cache: CacheConfig = loadCacheConfig(),
  tools: readonly ToolDefinition[] = allTools,
): Promise<void> {
  const { logger, upstream } = await openRuntime(config, cache);
  const server = createServer({
    api: upstream.api,
    reference: upstream.reference,
    tools,
    connection: upstream.connection,
    timeoutMs: config.timeoutMs,
    logger,
  });
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("stopping", { reason });
    await server.close().catch(() => {});
    await upstream.close().catch(() => {});
    process.exit(0);
  };
  process.stdin.once("end", () => void stop("stdin closed"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  // Only once the signals are handled: a client that has its answer may send SIGTERM at once.
  await server.connect(new StdioServerTransport());
  logger.info(`parts-mcp ${VERSION} ready on stdio`, {
    environment: upstream.connection.environment,
    baseUrl: upstream.connection.baseUrl,
    ...(upstream.connection.embedded && { note: "embedded sample API" }),
    ...(tools.length !== allTools.length && { tools: tools.map((tool) => tool.name) }),
  });
}
