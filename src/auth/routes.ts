// The one door to the authorization server: an allow list of the exact paths and methods
// oidc-provider may answer, each through the same checks (rate limits per address and per
// client_id, a 16 KB body read here, the registration's metadata filter, the authorization
// request's caps). oidc-provider's own router folds case and a trailing slash onto its routes and
// answers routes this server does not use (/session/end/confirm): any other spelling, method
// or path is refused here with 404 or 405, so nothing reaches it around these checks.
import type { IncomingMessage, ServerResponse } from "node:http";
import { decodeJwt } from "jose";
import { authorizationProblem, withDefaultScope } from "./authorize-request";
import { servedMetadata } from "./client-fetch";
import { messagePage } from "./page";
import { ROUTES } from "./provider";
import { clientAddress, type LimitKind, type RateLimits } from "./rate-limit";
import { readText, sendJson, sendPage, tooManyPage } from "./respond";

const MAX_BODY_BYTES = 16 * 1024;
/** A resumed authorization: /authorize/<interaction uid>. */
const RESUME = /^\/authorize\/[A-Za-z0-9_-]{1,64}$/;

type Route = "authorize" | "resume" | "token" | "register" | "revoke" | "jwks" | "metadata";

const EXACT = new Map<string, Route>([
  [ROUTES.authorization, "authorize"],
  [ROUTES.token, "token"],
  [ROUTES.registration, "register"],
  [ROUTES.revocation, "revoke"],
  [ROUTES.jwks, "jwks"],
  ["/.well-known/oauth-authorization-server", "metadata"],
  ["/.well-known/openid-configuration", "metadata"],
]);

const METHODS: Record<Route, readonly string[]> = {
  authorize: ["GET"],
  resume: ["GET"],
  token: ["POST", "OPTIONS"],
  register: ["POST"],
  revoke: ["POST", "OPTIONS"],
  jwks: ["GET", "HEAD", "OPTIONS"],
  metadata: ["GET", "HEAD", "OPTIONS"],
};

/** The limit each route's requests count against (its preflights and reads count against none). */
const LIMITED: Partial<Record<Route, LimitKind>> = {
  authorize: "authorize",
  token: "token",
  revoke: "token",
  register: "register",
};

export interface ProviderDoor {
  limits: RateLimits;
  behindProxy: boolean;
  /** Hands the request to oidc-provider. */
  forward(req: IncomingMessage, res: ServerResponse): void;
  /** The store did not answer (a limit could not be counted). */
  unavailable(res: ServerResponse, error: unknown): void;
}

/** The route `path` is, when it is exactly one of the authorization server's. */
function routeOf(path: string): Route | undefined {
  return EXACT.get(path) ?? (RESUME.test(path) ? "resume" : undefined);
}

/** Whether `path` is one of oidc-provider's: then the request is answered, here or there. */
export function routeToProvider(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  door: ProviderDoor,
): boolean {
  const route = routeOf(path);
  if (route === undefined) return false;
  const method = req.method ?? "";
  if (!METHODS[route].includes(method)) {
    req.resume();
    sendJson(
      res,
      405,
      { error: "invalid_request", error_description: `Use ${METHODS[route].join(" or ")}.` },
      {
        Allow: METHODS[route].join(", "),
      },
    );
    return true;
  }
  if (route === "metadata") req.url = "/.well-known/openid-configuration";
  const kind = method === "OPTIONS" ? undefined : LIMITED[route];
  if (kind === undefined) {
    door.forward(req, res);
    return true;
  }
  answerLimited(req, res, route, kind, door).catch((error: unknown) => door.unavailable(res, error));
  return true;
}

async function answerLimited(
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  kind: LimitKind,
  door: ProviderDoor,
): Promise<void> {
  const wait = await door.limits.take(kind, clientAddress(req, door.behindProxy));
  if (wait !== undefined) return tooMany(req, res, route, wait);
  if (route === "authorize") {
    const query = new URL(req.url ?? "", "http://x").search;
    const problem = authorizationProblem(query);
    if (problem !== undefined)
      return sendPage(res, 400, messagePage("This sign-in link is not valid", problem));
    const clientWait = await door.limits.client(new URLSearchParams(query).get("client_id") ?? undefined);
    if (clientWait !== undefined) return tooMany(req, res, route, clientWait);
    req.url = withDefaultScope(req.url ?? "");
    return door.forward(req, res);
  }
  const body = await readText(req, MAX_BODY_BYTES);
  if (body === undefined) {
    return sendJson(res, 413, {
      error: "invalid_request",
      error_description: `The request body must be at most ${MAX_BODY_BYTES / 1024} KB.`,
    });
  }
  if (route === "register") {
    const metadata = registration(body);
    if (metadata === undefined) {
      return sendJson(res, 400, {
        error: "invalid_client_metadata",
        error_description: "The registration must be a JSON object of at most 16 KB.",
      });
    }
    Object.assign(req, { body: metadata });
  } else {
    const clientWait = await door.limits.client(formClientId(body));
    if (clientWait !== undefined) return tooMany(req, res, route, clientWait);
    // oidc-provider reads a body already read from here (its selective_body.js).
    Object.assign(req, { body });
  }
  door.forward(req, res);
}

function tooMany(req: IncomingMessage, res: ServerResponse, route: Route, wait: number): void {
  if (route === "authorize") {
    tooManyPage(req, res, "Too many sign-in attempts", wait);
    return;
  }
  req.resume();
  sendJson(
    res,
    429,
    { error: "slow_down", error_description: `Too many requests: retry in ${wait} seconds.` },
    { "Retry-After": String(wait) },
  );
}

/**
 * The client_id a token or revocation request names: its form's, or else the subject of its
 * client assertion (read unverified: it only picks the counter; oidc-provider checks it).
 */
function formClientId(body: string): string | undefined {
  const form = new URLSearchParams(body);
  const named = form.get("client_id");
  if (named) return named;
  const assertion = form.get("client_assertion");
  if (assertion === null) return undefined;
  try {
    const { sub } = decodeJwt(assertion);
    return typeof sub === "string" ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** A registration request as JSON, without what this server does not serve (client-fetch.ts). */
function registration(text: string): Record<string, unknown> | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  return servedMetadata(body as Record<string, unknown>);
}
