// `parts-mcp`: the MCP server on stdin/stdout, for clients of either protocol era (the opening
// message decides: `initialize` for the 2025 revisions, `server/discover` or an enveloped request
// for 2026-07-28). Stdout carries protocol only; everything else goes to stderr through the logger.
// On stdin's end, SIGTERM or SIGINT the requests in flight are answered first (within the
// shutdown time-out); a client that closes stdout ends the process with one log line.
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { openRuntime, type ServingConfig } from "../app/runtime";
import { VERSION } from "../app/version";
import { createServer } from "../mcp/server";
import { StdioWire } from "./wire";

export async function runStdioServer(serving: ServingConfig): Promise<void> {
  const { catalogue, limits } = serving;
  const { logger, upstream, shared } = await openRuntime(serving);
  // One stdio session is one connection: the stricter of the two in-flight limits holds.
  const wire = new StdioWire({
    maxMessageBytes: limits.maxMessageBytes,
    maxInFlight: Math.min(limits.maxInFlight, limits.maxInFlightPerConnection),
  });
  const handle = serveStdio(() => createServer({ ...shared, mode: "stdio", wireGates: true }), {
    legacy: "serve",
    transport: wire,
    onerror: (error) => logger.debug("stdio message refused", { error: error.message }),
  });
  let stopping = false;
  const stop = async (reason: string, answerInFlight = true) => {
    if (stopping) return;
    stopping = true;
    logger.info("stopping", { reason, inFlight: wire.inFlight });
    if (answerInFlight) {
      let timer: NodeJS.Timeout | undefined;
      const answered = await Promise.race([
        wire.finish().then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), limits.shutdownTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (!answered) {
        logger.warn("requests still in flight were abandoned", {
          inFlight: wire.inFlight,
          timeoutMs: limits.shutdownTimeoutMs,
        });
      }
    }
    await handle.close().catch(() => {});
    await upstream.close().catch(() => {});
    process.exit(0);
  };
  process.stdin.once("end", () => void stop("stdin closed"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  // A client that closed its end of stdout can read nothing more: stop at once, saying why.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") void stop("stdout closed by the client (EPIPE)", false);
    else logger.error("stdout failed", { error });
  });
  logger.info(`parts-mcp ${VERSION} ready on stdio`, {
    environment: upstream.connection.environment,
    baseUrl: upstream.connection.baseUrl,
    ...(upstream.connection.embedded && { note: "embedded sample API" }),
    tools: catalogue.tools.map((tool) => tool.name),
  });
}
