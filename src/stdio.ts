// `parts-mcp`: the MCP server on stdin/stdout. Stdout carries protocol only; everything else
// goes to stderr through the logger.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { tools } from "../tools";
import { type ApiConfig, type CacheConfig, loadApiConfig, loadCacheConfig } from "./config";
import { createLogger } from "./log";
import { createServer } from "./server";
import { openUpstream } from "./upstream";
import { VERSION } from "./version";

export async function runStdioServer(
  config: ApiConfig = loadApiConfig(),
  cache: CacheConfig = loadCacheConfig(),
): Promise<void> {
  const secrets = new Set<string>(config.token ? [config.token] : []);
  const logger = createLogger({ level: config.logLevel, secrets: () => secrets });
  const upstream = await openUpstream(config, cache, logger);
  secrets.add(upstream.token);

  const server = createServer({
    api: upstream.api,
    reference: upstream.reference,
    tools,
    connection: upstream.connection,
    timeoutMs: config.timeoutMs,
    logger,
  });
  await server.connect(new StdioServerTransport());
  logger.info(`parts-mcp ${VERSION} ready on stdio`, {
    environment: upstream.connection.environment,
    baseUrl: upstream.connection.baseUrl,
    ...(upstream.connection.embedded && { note: "embedded sample API" }),
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
}
