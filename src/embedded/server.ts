// The request pipeline of the embedded API:
//   route (404 / 405) → stats → fault → auth (401) → query (400) → Content-Type (415)
//   → body size (413) → JSON (400) → body schema (400) → handler → response
// Every failure is the Error shape {status, message, code}; an unexpected exception becomes a
// 500 and never takes the server down.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { EndpointName } from "../api/endpoints";
import type { Org } from "./data/reference";
import { ApiError, errorJson, quote } from "./errors";
import { type FaultInjector, PRE_HANDLER_VARIANTS } from "./faults";
import { type HandlerContext, handlers } from "./handlers";
import { buildOpenApiDocument } from "./openapi";
import {
  answerBeforeHandler,
  answerMangled,
  type Exchange,
  JSON_TYPE,
  type Outcome,
  pause,
  send,
  sendOutcome,
} from "./respond";
import type { Match, Router } from "./router";
import type { StatsRecorder } from "./stats";
import type { Store } from "./store";
import { parseOrThrow, parseQuery } from "./validate";

type AnyHandler = (ctx: HandlerContext) => string;
type RouteMatch = Extract<Match, { kind: "route" }>;

const WWW_AUTHENTICATE_MISSING = { "www-authenticate": 'Bearer realm="parts-api"' };
const WWW_AUTHENTICATE_INVALID = { "www-authenticate": 'Bearer realm="parts-api", error="invalid_token"' };

/** The client went away while its request body was arriving. */
class ClientGone extends Error {}

export interface PipelineOptions {
  store: Store;
  faults: FaultInjector;
  stats: StatsRecorder;
  router: Router;
  maxBodyBytes: number;
}

function errorOutcome(error: ApiError): Outcome {
  return {
    status: error.status,
    body: errorJson(error.status, error.message, error.code),
    headers: error.headers,
  };
}

export class Pipeline {
  /** Set once the server listens. */
  baseUrl = "";
  port = 0;
  closing = false;
  private seq = 0;
  private openApiJson: string | undefined;

  constructor(private readonly options: PipelineOptions) {}

  readonly onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    this.handle(req, res).catch((error: unknown) => {
      if (error instanceof ClientGone) return;
      if (!res.headersSent) send(res, "", 500, errorJson(500, "internal error"));
      else res.destroy();
    });
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `req_${(++this.seq).toString(36)}`;
    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const rawQuery = q < 0 ? "" : rawUrl.slice(q + 1);
    const method = req.method ?? "GET";

    let match: Match;
    let badPath: ApiError | undefined;
    try {
      match = this.options.router.match(method, path);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      match = { kind: "not-found" };
      badPath = error;
    }
    const endpoint: EndpointName | undefined = match.kind === "route" ? match.route.name : undefined;
    this.options.stats.recordRequest(endpoint, req.headers);

    let abortedByServer = false;
    res.once("close", () => {
      if (!res.writableFinished && !abortedByServer && !this.closing)
        this.options.stats.recordClosedEarly(endpoint);
    });
    const ex: Exchange = {
      req,
      res,
      requestId,
      port: this.port,
      abortedByServer: () => {
        abortedByServer = true;
      },
    };

    if (match.kind !== "route") {
      if (badPath !== undefined) return sendOutcome(ex, errorOutcome(badPath));
      if (path === "/openapi.json") return this.serveOpenApi(ex, method);
      if (match.kind === "method-not-allowed") {
        return sendOutcome(ex, {
          status: 405,
          body: errorJson(
            405,
            `method ${method} is not allowed on ${match.template}; allowed: ${match.allow}`,
          ),
          headers: { allow: match.allow },
        });
      }
      const message = `no endpoint at ${quote(path)}; the API is described at /openapi.json`;
      return sendOutcome(ex, { status: 404, body: errorJson(404, message) });
    }

    const fault = this.options.faults.pick(match.route.name);
    if (fault !== undefined) {
      switch (fault.kind) {
        case "drop":
          ex.abortedByServer();
          req.socket.destroy();
          return;
        case "status": {
          const headers: Record<string, string> = {};
          if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
          if (fault.status === 401) Object.assign(headers, WWW_AUTHENTICATE_MISSING);
          const error = new ApiError(
            fault.status,
            fault.message ?? defaultFaultMessage(fault.status),
            fault.code,
            headers,
          );
          return sendOutcome(ex, errorOutcome(error));
        }
        case "latency":
          await pause(fault.ms, res);
          if (res.destroyed) return;
          break;
        case "malformed":
          if (PRE_HANDLER_VARIANTS.has(fault.variant)) return answerBeforeHandler(fault.variant, ex);
          return answerMangled(fault.variant, ex, await this.run(req, match, rawQuery), fault.durationMs);
      }
    }
    sendOutcome(ex, await this.run(req, match, rawQuery));
  }

  /** Authenticates, validates and runs the handler; every failure becomes an Error outcome. */
  private async run(req: IncomingMessage, match: RouteMatch, rawQuery: string): Promise<Outcome> {
    const { store, maxBodyBytes } = this.options;
    try {
      const org = this.authenticate(req);
      const { route, params } = match;
      const query = route.query === undefined ? undefined : parseQuery(route.query, rawQuery);
      let body: unknown;
      const bodySchema = route.endpoint.body;
      if (bodySchema !== undefined) {
        const media = req.headers["content-type"]?.split(";", 1)[0]?.trim().toLowerCase();
        if (media !== "application/json") {
          throw new ApiError(415, "Content-Type must be application/json");
        }
        const raw = await readBody(req, maxBodyBytes);
        body = parseOrThrow(bodySchema, parseJson(raw));
      }
      const handler = handlers[route.name] as AnyHandler;
      return {
        status: 200,
        body: handler({ org, params, query, body, store, baseUrl: this.baseUrl } as HandlerContext),
      };
    } catch (error) {
      if (error instanceof ApiError) return errorOutcome(error);
      if (error instanceof ClientGone) throw error;
      return { status: 500, body: errorJson(500, "internal error") };
    }
  }

  private authenticate(req: IncomingMessage): Org {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === "") {
      throw new ApiError(
        401,
        "missing bearer token: send Authorization: Bearer <token>",
        "unauthenticated",
        WWW_AUTHENTICATE_MISSING,
      );
    }
    const space = header.indexOf(" ");
    if (space < 0 || header.slice(0, space).toLowerCase() !== "bearer") {
      throw new ApiError(401, "the Authorization header must use the Bearer scheme", "unauthenticated", {
        ...WWW_AUTHENTICATE_MISSING,
      });
    }
    const org = this.options.store.orgForToken(header.slice(space + 1).trim());
    if (org === undefined) {
      throw new ApiError(401, "invalid or expired token", "unauthenticated", WWW_AUTHENTICATE_INVALID);
    }
    return org;
  }

  private serveOpenApi(ex: Exchange, method: string): void {
    if (method !== "GET") {
      sendOutcome(ex, {
        status: 405,
        body: errorJson(405, `method ${method} is not allowed on /openapi.json; allowed: GET`),
        headers: { allow: "GET" },
      });
      return;
    }
    this.openApiJson ??= JSON.stringify(buildOpenApiDocument(this.baseUrl));
    send(ex.res, ex.requestId, 200, this.openApiJson, JSON_TYPE);
  }
}

function defaultFaultMessage(status: number): string {
  if (status === 429) return "rate limit exceeded, retry later";
  if (status === 503) return "service unavailable, try again later";
  if (status >= 500) return "internal error";
  return `request failed with status ${status}`;
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) throw new ApiError(400, "body: is required (a JSON object)");
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new ApiError(400, "body: malformed JSON");
  }
}

/** Reads a request body up to `limit` bytes; over the limit, a 413 (the rest is discarded). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => new ApiError(413, `request body larger than ${limit} bytes`);
  if (req.destroyed || req.readableAborted) return Promise.reject(new ClientGone());
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onGone = () => {
      cleanup();
      reject(new ClientGone());
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}
