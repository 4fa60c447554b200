// The request pipeline of the embedded API:
//   route (404 / 405) → auth (401) → query (400) → Content-Type (415) → body size (413)
//   → JSON (400) → body schema (400) → handler → response
// Every failure is the Error shape {status, message, code}; an unexpected exception becomes a
// 500 and never takes the server down. A `RequestHook` may wrap each request: the test entry
// (testing/index.ts) injects faults and counts requests that way, so neither ships here.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { EndpointName } from "../api/endpoints";
import { BodyTooLarge, ClientGone, readBody } from "../http/body";
import type { Org } from "./data/reference";
import { ApiError, errorJson, quote } from "./errors";
import { type HandlerContext, handlers } from "./handlers";
import { buildOpenApiDocument } from "./openapi";
import { type Outcome, send, sendOutcome } from "./respond";
import type { Match, Router } from "./router";
import type { Store } from "./store";
import { parseOrThrow, parseQuery } from "./validate";

type AnyHandler = (ctx: HandlerContext) => string;
type RouteMatch = Extract<Match, { kind: "route" }>;

export const WWW_AUTHENTICATE_MISSING = { "www-authenticate": 'Bearer realm="parts-api"' };
const WWW_AUTHENTICATE_INVALID = { "www-authenticate": 'Bearer realm="parts-api", error="invalid_token"' };

/** One request as a hook sees it. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  /** The endpoint of the table the request matched; undefined for /openapi.json, 404 and 405. */
  endpoint: EndpointName | undefined;
  /** Runs the request (authentication, validation, handler) and returns its answer, unsent. */
  run(): Promise<Outcome>;
}

/** Wraps the handling of every request; `next` answers it normally. */
export type RequestHook = (ex: Exchange, next: () => Promise<void>) => Promise<void>;

export interface PipelineOptions {
  store: Store;
  router: Router;
  maxBodyBytes: number;
  hook?: RequestHook | undefined;
}

export function errorOutcome(error: ApiError): Outcome {
  return {
    status: error.status,
    body: errorJson(error.status, error.message, error.code),
    headers: error.headers,
  };
}

export class Pipeline {
  /** Set once the server listens. */
  baseUrl = "";
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

  private handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ex = this.exchange(req, res);
    const next = async () => sendOutcome(ex, await ex.run());
    const { hook } = this.options;
    return hook === undefined ? next() : hook(ex, next);
  }

  private exchange(req: IncomingMessage, res: ServerResponse): Exchange {
    const requestId = `req_${(++this.seq).toString(36)}`;
    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const rawQuery = q < 0 ? "" : rawUrl.slice(q + 1);
    const method = req.method ?? "GET";
    let match: Match;
    try {
      match = this.options.router.match(method, path);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { req, res, requestId, endpoint: undefined, run: async () => errorOutcome(error) };
    }
    if (match.kind === "route") {
      const route = match;
      return { req, res, requestId, endpoint: match.route.name, run: () => this.run(req, route, rawQuery) };
    }
    const outcome = this.offTable(match, method, path);
    return { req, res, requestId, endpoint: undefined, run: async () => outcome };
  }

  /** The answer to a request outside the endpoint table: the OpenAPI document, 405 or 404. */
  private offTable(match: Exclude<Match, RouteMatch>, method: string, path: string): Outcome {
    if (path === "/openapi.json") return this.openApi(method);
    if (match.kind === "method-not-allowed") {
      return {
        status: 405,
        body: errorJson(405, `method ${method} is not allowed on ${match.template}; allowed: ${match.allow}`),
        headers: { allow: match.allow },
      };
    }
    const message = `no endpoint at ${quote(path)}; the API is described at /openapi.json`;
    return { status: 404, body: errorJson(404, message) };
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
        const raw = await readBody(req, maxBodyBytes).catch((error: unknown) => {
          throw error instanceof BodyTooLarge ? new ApiError(413, error.message) : error;
        });
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

  private openApi(method: string): Outcome {
    if (method !== "GET") {
      return {
        status: 405,
        body: errorJson(405, `method ${method} is not allowed on /openapi.json; allowed: GET`),
        headers: { allow: "GET" },
      };
    }
    this.openApiJson ??= JSON.stringify(buildOpenApiDocument(this.baseUrl));
    return { status: 200, body: this.openApiJson };
  }
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) throw new ApiError(400, "body: is required (a JSON object)");
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new ApiError(400, "body: malformed JSON");
  }
}
