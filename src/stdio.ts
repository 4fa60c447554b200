// `parts-mcp`: the MCP server on stdin/stdout, for clients of either protocol era (the opening
// message decides: `initialize` for the 2025 revisions, `server/discover` or an enveloped request
// for 2026-07-28). Stdout carries protocol only; everything else goes to stderr through the logger.
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Catalogue } from "./catalogue";
import type { ApiConfig, CacheConfig } from "./config";
import { openRuntime } from "./runtime";
import { createServer } from "./server";
import { VERSION } from "./version";

export async function runStdioServer(
  config: ApiConfig,
  cache: CacheConfig,
  catalogue: Catalogue,
): Promise<void> {
  const { logger, upstream } = await openRuntime(config, cache);
  const handle = serveStdio(
    () =>
      createServer({
        api: upstream.api,
        reference: upstream.reference,
        catalogue,
        connection: upstream.connection,
        timeoutMs: config.timeoutMs,
        cacheTtlMs: cache.ttlMs,
        logger,
      }),
    { legacy: "serve", onerror: (error) => logger.warn("stdio transport error", { error }) },
  );
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("stopping", { reason });
    await handle.close().catch(() => {});
    await upstream.close().catch(() => {});
    process.exit(0);
  };
  process.stdin.once("end", () => void stop("stdin closed"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  logger.info(`parts-mcp ${VERSION} ready on stdio`, {
    environment: upstream.connection.environment,
    baseUrl: upstream.connection.baseUrl,
    ...(upstream.connection.embedded && { note: "embedded sample API" }),
  });
}
