// One HTTP request, from the socket to the MCP server and back. Everything that can be refused
// is refused from the headers, before the body is read: shutting down (503), Host or Origin of
// another site (403), a method other than POST (405), no or wrong credentials (401), a body that
// is not JSON (415) or too large (413). What passes is answered statelessly by the SDK's
// Streamable HTTP transport (plain JSON responses, no session id), with a server bound to the
// request's upstream token.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../log";
import type { AccessControl, OriginGuard } from "./access";
import type { ServerPool } from "./pool";

export const MCP_PATH = "/mcp";
export const HEALTH_PATH = "/healthz";

/** Beyond the limit, a body is still read (and dropped) up to this much, so that the client gets
 * its 413 instead of a connection reset; a larger one is cut off. */
const DRAIN_LIMIT = 16 * 1024 * 1024;

const CORS_ALLOW_HEADERS =
  "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, X-Parts-Api-Token";
const CORS_EXPOSE_HEADERS = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate";

export interface HandlerOptions {
  guard: OriginGuard;
  access: AccessControl;
  pool: ServerPool;
  maxBodyBytes: number;
  logger: Logger;
  /** Called with each per-user token seen, so the logger can redact it. */
  rememberToken(token: string): void;
}

type Body = { body: Buffer } | { tooLarge: true; drained: boolean };

export class McpHttpHandler {
  readonly #options: HandlerOptions;
  #draining = false;
  #inFlight = 0;
  #idle: (() => void) | undefined;

  constructor(options: HandlerOptions) {
    this.#options = options;
  }

  /** MCP requests accepted and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Refuses every new request with 503; resolves once the requests in flight are answered. */
  drain(): Promise<void> {
    this.#draining = true;
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (path === MCP_PATH) this.#mcp(req, res);
    else if (path === HEALTH_PATH) this.#health(req, res);
    else send(res, 404, JSON.stringify({ error: `Not found: MCP is served at ${MCP_PATH}` }));
  };

  #health(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(res, 405, JSON.stringify({ error: "Use GET" }), { Allow: "GET, HEAD" });
    } else if (this.#draining) {
      send(res, 503, JSON.stringify({ status: "draining" }), { Connection: "close" });
    } else {
      send(res, 200, JSON.stringify({ status: "ok" }));
    }
  }

  #mcp(req: IncomingMessage, res: ServerResponse): void {
    const admitted = this.#admit(req, res);
    if (admitted === "answered") return;
    if ("status" in admitted) {
      this.#refuse(req, res, admitted);
      return;
    }
    const { token } = admitted;
    this.#inFlight++;
    res.once("close", this.#done);
    readBody(req, this.#options.maxBodyBytes).then(
      (read) => {
        if ("tooLarge" in read) {
          this.#refuse(req, res, this.#tooLarge(read.drained));
          return;
        }
        let message: unknown;
        try {
          message = JSON.parse(read.body.toString("utf8"));
        } catch {
          this.#refuse(req, res, {
            status: 400,
            message: "Parse error: the body is not valid JSON.",
            code: ErrorCode.ParseError,
          });
          return;
        }
        void this.#serve(req, res, token, message);
      },
      () => res.destroy(),
    );
  }

  /** What the headers decide: a refusal, a request to serve (with its upstream token), or a
   * preflight already answered. */
  #admit(req: IncomingMessage, res: ServerResponse): Failure | { token?: string } | "answered" {
    if (this.#draining) {
      return {
        status: 503,
        message: "The server is shutting down: send the request again (another replica will answer it).",
        headers: { Connection: "close", "Retry-After": "1" },
      };
    }
    const refusal = this.#options.guard.check(req.headers);
    if (refusal) return refusal;

    const origin = req.headers.origin;
    if (origin !== undefined) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Vary", "Origin");
      res.setHeader("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    }
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "Access-Control-Allow-Methods": "POST, OPTIONS",
        "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
        "Access-Control-Max-Age": "600",
      });
      res.end();
      return "answered";
    }
    if (req.method !== "POST") {
      // Stateless: no session to resume or delete, and no stream for server-initiated messages.
      return {
        status: 405,
        message: "This server is stateless: send each JSON-RPC message in a POST.",
        headers: { Allow: "POST, OPTIONS" },
      };
    }
    const access = this.#options.access.check(req.headers);
    if (!access.ok) return access.refusal;
    if (!isJson(req.headers["content-type"])) {
      return { status: 415, message: "Content-Type must be application/json." };
    }
    if (Number(req.headers["content-length"] ?? 0) > this.#options.maxBodyBytes + DRAIN_LIMIT) {
      return this.#tooLarge(false);
    }
    if (access.token === undefined) return {};
    this.#options.rememberToken(access.token);
    return { token: access.token };
  }

  readonly #done = (): void => {
    this.#inFlight--;
    if (this.#inFlight === 0 && this.#idle) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle();
    }
  };

  async #serve(
    req: IncomingMessage,
    res: ServerResponse,
    token: string | undefined,
    message: unknown,
  ): Promise<void> {
    const { pool, logger } = this.#options;
    // Initialize leaves the client's capabilities on the server, and setLevel may leave its
    // level: such a server is not reused.
    const pooled = !keepsClientState(message);
    const server = pooled ? pool.acquire(token) : pool.create(token);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    let finished = false;
    // A client that goes away cancels its calls (and their upstream requests).
    res.once("close", () => {
      if (finished) return;
      finished = true;
      detach(server);
    });
    if (this.#draining) res.shouldKeepAlive = false;
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, message);
    } catch (error) {
      logger.error("MCP request failed", { error });
      if (!res.headersSent) {
        send(res, 500, rpcError(ErrorCode.InternalError, "Internal error"));
      }
    }
    if (finished) return;
    finished = true;
    detach(server);
    if (pooled) pool.release(token, server);
  }

  #tooLarge(drained: boolean): Failure {
    return {
      status: 413,
      message: `The request body is larger than ${this.#options.maxBodyBytes} bytes (PARTS_MCP_MAX_BODY_BYTES).`,
      code: ErrorCode.InvalidRequest,
      // A body that was not read to its end leaves the connection unusable.
      ...(!drained && { headers: { Connection: "close" } }),
    };
  }

  #refuse(req: IncomingMessage, res: ServerResponse, failure: Failure): void {
    this.#options.logger.debug("HTTP request refused", {
      method: req.method,
      status: failure.status,
      reason: failure.message,
    });
    send(res, failure.status, rpcError(failure.code ?? -32000, failure.message), failure.headers);
  }
}

/** A request answered with an HTTP error status and a JSON-RPC error body. */
interface Failure {
  status: number;
  message: string;
  /** JSON-RPC error code; default -32000 (the SDK's for transport-level refusals). */
  code?: number;
  headers?: Record<string, string>;
}

/**
 * Closes a server's transport, which leaves the server free to take another. Closing builds a
 * "Connection closed" McpError for requests still waiting on the client (a stateless server has
 * none); its stack trace is a tenth of a cached call's time, so it is not captured. The close runs
 * synchronously, so the limit is back before anything else runs.
 */
function detach(server: McpServer): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    void server.close();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function send(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

const rpcError = (code: number, message: string) =>
  JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });

function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(";");
  return (
    (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase() ===
    "application/json"
  );
}

function keepsClientState(message: unknown): boolean {
  if (Array.isArray(message)) return message.some(keepsClientState);
  const method = (message as { method?: unknown } | null)?.method;
  return method === "initialize" || method === "logging/setLevel";
}

/** The body, or that it is over `limit` (and whether it was read to its end anyway). */
function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
      } else if (size > limit + DRAIN_LIMIT) {
        req.removeAllListeners("data");
        req.pause();
        resolve({ tooLarge: true, drained: false });
      } else {
        chunks.length = 0;
      }
    });
    req.once("end", () => {
      resolve(
        size > limit
          ? { tooLarge: true, drained: true }
          : { body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) },
      );
    });
    req.once("error", reject);
  });
}
