// One HTTP request, from the socket to the MCP server and back. What can be refused from the
// headers is refused here, before the body is read: shutting down (503), Host or Origin of another
// site (403), a method other than POST (405), no or wrong credentials (401). What passes goes to
// the SDK's per-request handler (`createMcpHandler`), which serves both protocol eras statelessly
// (2025 requests without a session id, 2026-07-28 requests with their `_meta` envelope) and takes
// a new server for each request, bound to its upstream token, as the SDK documents for stateless
// serving (building one is cheap: the catalogue and its schemas are built once). The body is
// read and parsed here (size, type, JSON), so that the message guard shared with stdio sees it
// before the SDK does; a protocol version header that disagrees with the body in a way known
// hosts send is set from the body first (era.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { type AuthInfo, createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import type { Logger } from "../log/logger";
import type { Catalogue } from "../mcp/catalogue";
import { refusalFor } from "../mcp/message-guard";
import { telemetry } from "../telemetry";
import type { AccessControl, OriginGuard } from "./access";
import { BodyTooLarge, readBody } from "./body";
import { BUSY_MESSAGE } from "./connections";
import { EraReconciler } from "./era";
import { type HttpAnswer, respond, rpcError } from "./respond";

/** What the `oauth` mode adds (src/auth/): its own routes, and who calls /mcp. */
export interface OAuthHooks {
  route(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  authenticate(
    req: IncomingMessage,
  ): Promise<{ ok: true; authInfo: AuthInfo } | ({ ok: false } & HttpAnswer)>;
  health(): Promise<{ store: string; ok: boolean }>;
  /** The HTTP answer (403 step-up) when the caller's scopes do not cover a call of `tool`, which changes data. */
  scopeChallenge(tool: string, authInfo: AuthInfo): Promise<HttpAnswer | undefined>;
}

export const MCP_PATH = "/mcp";
const HEALTH_PATH = "/healthz";

const CORS_ALLOW_HEADERS =
  "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, X-Parts-Api-Token";
const CORS_EXPOSE_HEADERS = "Mcp-Protocol-Version, WWW-Authenticate";

export interface HandlerOptions {
  /** Whether a connection came in past the connection cap (connections.ts). */
  crowded(socket: Socket): boolean;
  guard: OriginGuard;
  access: AccessControl;
  /** Builds the server for one request; `token` is the caller's own (per-user), if any. */
  createServer(token: string | undefined): McpServer;
  /** The tools the server serves, whose annotations say which calls change data. */
  catalogue: Pick<Catalogue, "get">;
  maxBodyBytes: number;
  /** Requests handled at once; more are answered 503 "busy, retry". */
  maxInFlight: number;
  logger: Logger;
  oauth?: OAuthHooks;
}

export class McpHttpHandler {
  readonly #options: HandlerOptions;
  readonly #fetch: ReturnType<typeof createMcpHandler>["fetch"];
  readonly #onerror: (error: Error) => void;
  readonly #era: EraReconciler;
  #draining = false;
  #inFlight = 0;
  #idle: (() => void) | undefined;
  /** Requests admitted whose body has not fully arrived: on shutdown they are cut off, not waited for. */
  readonly #receiving = new Set<IncomingMessage>();

  constructor(options: HandlerOptions) {
    this.#options = options;
    this.#era = new EraReconciler(options.logger);
    const onerror = (error: Error) => options.logger.debug("MCP request refused", { error: error.message });
    const mcp = createMcpHandler(({ authInfo }) => options.createServer(authInfo?.token), {
      legacy: "stateless",
      onerror,
    });
    // The SDK is always handed the parsed body (#read enforces the size limit), so its own body
    // limits never apply. What it answers passes the text gate as it is written (respond.ts).
    this.#fetch = mcp.fetch;
    this.#onerror = onerror;
  }

  /** MCP requests accepted and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Refuses every new request with 503, closes the connections of requests still sending their
   * body (a client that trickles must not hold the shutdown), and resolves once the requests
   * that had fully arrived are answered.
   */
  drain(): Promise<void> {
    this.#draining = true;
    for (const req of this.#receiving) req.socket.destroy();
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (path === MCP_PATH) {
      this.#mcp(req, res);
      return;
    }
    // Every other path passes the same Host and Origin guard as /mcp (access.ts), before the
    // OAuth routes see the request.
    const refusal = this.#options.guard.check(req.headers, path === HEALTH_PATH ? "health" : "page");
    if (refusal) {
      this.#options.logger.debug("HTTP request refused", { status: refusal.status, reason: refusal.message });
      send(res, refusal.status, JSON.stringify({ error: refusal.message }));
    } else if (path === HEALTH_PATH) this.#health(req, res);
    else if (this.#options.oauth?.route(req, res, path)) return;
    else send(res, 404, JSON.stringify({ error: `Not found: MCP is served at ${MCP_PATH}` }));
  };

  #health(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(res, 405, JSON.stringify({ error: "Use GET" }), { Allow: "GET, HEAD" });
    } else if (this.#draining) {
      send(res, 503, JSON.stringify({ status: "draining" }), { Connection: "close" });
    } else if (this.#options.oauth) {
      void this.#options.oauth
        .health()
        .then(({ store, ok }) =>
          send(res, ok ? 200 : 503, JSON.stringify({ status: ok ? "ok" : "store unavailable", store })),
        );
    } else {
      send(res, 200, JSON.stringify({ status: "ok" }));
    }
  }

  #mcp(req: IncomingMessage, res: ServerResponse): void {
    // Already answered 503 by the connection cap while it sent nothing (connections.ts).
    if (req.socket.writableEnded) {
      req.resume();
      return;
    }
    const admitted = this.#admit(req, res);
    if (admitted === "answered") return;
    if ("status" in admitted) {
      this.#refuse(req, res, admitted);
      return;
    }
    this.#inFlight++;
    res.once("close", this.#done);
    if (!req.complete) {
      this.#receiving.add(req);
      const received = () => this.#receiving.delete(req);
      req.once("end", received);
      res.once("close", received);
    }
    const oauth = this.#options.oauth;
    let auth: AuthInfo | undefined =
      admitted.token === undefined ? undefined : { token: admitted.token, clientId: "per-user", scopes: [] };
    (oauth ? oauth.authenticate(req) : Promise.resolve(undefined))
      .then((authenticated) => {
        if (authenticated?.ok === false) {
          req.resume();
          send(res, authenticated.status, authenticated.body, authenticated.headers);
          return undefined;
        }
        if (authenticated) auth = authenticated.authInfo;
        return this.#read(req, res);
      })
      .then(async (message) => {
        if (message === undefined) return;
        const refusal = refusalFor(message);
        if (refusal) {
          send(res, 200, JSON.stringify(refusal));
          return;
        }
        const writer = this.#writeTool(message);
        const challenge = auth && writer !== undefined && (await oauth?.scopeChallenge(writer, auth));
        if (challenge) return send(res, challenge.status, challenge.body, challenge.headers);
        this.#era.apply(req.headers, message);
        return respond(this.#fetch, req, res, message, auth, this.#onerror);
      })
      .catch((error: unknown) => {
        this.#options.logger.error("MCP request failed", { error });
        if (!res.headersSent) send(res, 500, rpcError(-32603, "Internal error"));
        else res.destroy();
      });
  }

  /**
   * The tool a tools/call message names when this server serves it and its annotations say it
   * changes data (such a call needs the oauth mode's parts:write); a tool not served goes on to
   * the unknown-tool answer.
   */
  #writeTool(message: unknown): string | undefined {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    const name = method === "tools/call" ? params?.name : undefined;
    if (typeof name !== "string") return undefined;
    return this.#options.catalogue.get(name)?.tool.annotations.readOnlyHint === false ? name : undefined;
  }

  /**
   * The request's JSON body, read here rather than by the SDK so that the message guard
   * (src/mcp/message-guard.ts) sees it as sent; undefined when the request was already answered (too
   * large, not JSON, or the client went away).
   */
  async #read(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const media = req.headers["content-type"]?.split(";", 1)[0]?.trim().toLowerCase();
    if (media !== "application/json") {
      this.#refuse(req, res, { status: 415, message: "Content-Type must be application/json." });
      return undefined;
    }
    let body: Buffer;
    try {
      body = await readBody(req, this.#options.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        this.#refuse(req, res, {
          status: 413,
          message: `The request body is larger than ${error.limit} bytes (PARTS_MCP_MAX_MESSAGE_BYTES): send less.`,
          headers: { Connection: "close" },
        });
      } else {
        res.destroy();
      }
      return undefined;
    }
    let message: unknown;
    try {
      message = JSON.parse(body.toString("utf8"));
    } catch {
      send(res, 400, rpcError(-32700, "Parse error: the body is not valid JSON."));
      return undefined;
    }
    // One message a request, as the stdio wire takes them: every check made here (the message
    // guard, the scope step-up) reads one message, so a batch would pass them unread.
    if (Array.isArray(message)) {
      send(
        res,
        400,
        rpcError(
          -32600,
          "Invalid Request: send one JSON-RPC message per request (batches are not supported).",
        ),
      );
      return undefined;
    }
    return message;
  }

  /** What the headers decide: a refusal, a request to serve (with its upstream token), or a
   * preflight already answered. */
  #admit(req: IncomingMessage, res: ServerResponse): Failure | { token?: string } | "answered" {
    if (this.#draining) {
      telemetry.shed("draining");
      return {
        status: 503,
        message: "The server is shutting down: send the request again (another replica will answer it).",
        headers: { Connection: "close", "Retry-After": "1" },
      };
    }
    if (this.#options.crowded(req.socket)) {
      telemetry.shed("connections");
      return {
        status: 503,
        message: BUSY_MESSAGE,
        headers: { Connection: "close", "Retry-After": "1" },
      };
    }
    const refusal = this.#options.guard.check(req.headers);
    if (refusal) return refusal;
    if (this.#inFlight >= this.#options.maxInFlight) {
      telemetry.shed("busy");
      return {
        status: 503,
        message: `The server is busy (${this.#inFlight} requests in flight, PARTS_MCP_MAX_IN_FLIGHT): send the request again in a second.`,
        headers: { "Retry-After": "1" },
      };
    }

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
    if (this.#options.oauth) return {};
    const access = this.#options.access.check(req.headers);
    if (!access.ok) return access.refusal;
    return access.token === undefined ? {} : { token: access.token };
  }

  readonly #done = (): void => {
    this.#inFlight--;
    if (this.#inFlight === 0 && this.#idle) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle();
    }
  };

  #refuse(req: IncomingMessage, res: ServerResponse, failure: Failure): void {
    this.#options.logger.debug("HTTP request refused", {
      method: req.method,
      status: failure.status,
      reason: failure.message,
    });
    send(res, failure.status, rpcError(-32000, failure.message), failure.headers);
  }
}

/** A request answered with an HTTP error status and a JSON-RPC error body. */
interface Failure {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** Writes a whole answer; `headers` (lowercase names, as `answerOf` gives them) may set its content type. */
function send(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}
