// The one error type of the client, and the factories that build it. Messages are for a person
// (and the model): what was called, what happened, what to do. They never carry the token or a
// query string: the path is the API path without its query, upstream texts are redacted.
import type { z } from "zod";
import { redact } from "../log";

export type PartsApiErrorKind =
  | "http"
  | "network"
  | "timeout"
  | "cancelled"
  | "contract"
  | "too_large"
  | "redirect";

export interface PartsApiErrorInit {
  kind: PartsApiErrorKind;
  message: string;
  method: string;
  path: string;
  attempts: number;
  status?: number;
  code?: string;
  retryAfterSeconds?: number;
  upstreamMessage?: string;
  detail?: string;
  cause?: unknown;
}

export class PartsApiError extends Error {
  override readonly name = "PartsApiError";
  readonly kind: PartsApiErrorKind;
  /** HTTP status (for kind "http": the status the API declared, see `message`). */
  readonly status?: number;
  /** The `code` field of the API's error body, when it sent one. */
  readonly code?: string;
  readonly method: string;
  /** API path (`/v1/parts/p%2F1`), without base-URL prefix or query string. */
  readonly path: string;
  /** Seconds the API asked to wait (Retry-After), when it did. */
  readonly retryAfterSeconds?: number;
  /** Attempts made, retries included. */
  readonly attempts: number;
  /** The API's own `message`, redacted. */
  readonly upstreamMessage?: string;
  /**
   * What was wrong, in a few words, when the API sent no message of its own: the body of a
   * contract failure ("HTTP 200 with a body that is not valid JSON (truncated or garbled)"), the
   * size of a refused response, the network failure, a non-JSON error page, a redirect's target.
   */
  readonly detail?: string;

  constructor(init: PartsApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
    if (init.status !== undefined) this.status = init.status;
    if (init.code !== undefined) this.code = init.code;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.upstreamMessage !== undefined) this.upstreamMessage = init.upstreamMessage;
    if (init.detail !== undefined) this.detail = init.detail;
  }
}

/** What the factories need to know about the request. */
export interface RequestContext {
  method: string;
  path: string;
  /** scheme://host[:port] of the API, for network messages. */
  origin: string;
  idempotent: boolean;
  /** Secrets to keep out of upstream texts (the token in use). */
  secret: string;
}

export interface ResponseFacts {
  status: number;
  statusText?: string | undefined;
  contentType?: string | undefined;
  location?: string | undefined;
  retryAfterMs?: number | undefined;
  body: Buffer;
}

const MAX_UPSTREAM_TEXT = 500;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

export const isJsonContentType = (contentType: string): boolean => JSON_TYPE.test(contentType);

const attemptsNote = (attempts: number) => (attempts > 1 ? ` (after ${attempts} attempts)` : "");

const prefix = (ctx: RequestContext) => `${ctx.method} ${ctx.path}`;

/** The API's error shape `{status, message, code?}`, loosely: any object with those field types. */
export function asErrorBody(value: unknown): { status: number; message: string; code?: string } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.status !== "number" || typeof v.message !== "string") return undefined;
  return typeof v.code === "string"
    ? { status: v.status, message: v.message, code: v.code }
    : { status: v.status, message: v.message };
}

function cleanUpstream(text: string, ctx: RequestContext): string {
  const oneLine = redact(text, [ctx.secret]).replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_UPSTREAM_TEXT ? `${oneLine.slice(0, MAX_UPSTREAM_TEXT)}…` : oneLine;
}

function statusHint(status: number, ctx: RequestContext, retryAfterSeconds: number | undefined): string {
  if (status === 401)
    return "The access token was not accepted: check PARTS_API_TOKEN and that it belongs to the selected PARTS_API_ENV.";
  if (status === 403) return "The access token is not allowed to do this.";
  if (status === 404)
    return "Nothing exists under this id or code: check it (list or search tools give valid values).";
  if (status === 400 || status === 422)
    return "The API rejected the request as invalid: check the arguments.";
  if (status === 409) return "The request conflicts with the current state of the resource.";
  if (status === 429) {
    return retryAfterSeconds === undefined
      ? "The API is rate limiting requests: wait a little before trying again."
      : `The API is rate limiting requests: try again in ${retryAfterSeconds} s.`;
  }
  if (status >= 500) {
    return ctx.idempotent
      ? "The API failed: try again later."
      : "This request is not retried automatically, since repeating it could apply it twice: check whether it took effect before trying again.";
  }
  return "";
}

function describeNonErrorBody(facts: ResponseFacts): string {
  const text =
    facts.body.length === 0 ? "" : facts.body.toString("utf8", 0, Math.min(facts.body.length, 512));
  if (text.trim() === "") return "with an empty body";
  if ((facts.contentType ?? "").toLowerCase().startsWith("text/html") || /^\s*</.test(text)) {
    return "with an HTML page instead of the API's JSON error";
  }
  if (facts.contentType && isJsonContentType(facts.contentType))
    return "with a JSON body that is not the API's error shape";
  return `with a ${facts.contentType ? `${facts.contentType.split(";")[0]} ` : ""}body that is not the API's JSON error`;
}

/**
 * The error for a response that is not a success: built from status and body, whatever the body
 * is (the API's error shape, an HTML page from a proxy, nothing, truncated JSON).
 */
export function errorFromResponse(
  ctx: RequestContext,
  facts: ResponseFacts,
  attempts: number,
): PartsApiError {
  const { status } = facts;
  if (status >= 300 && status < 400) return redirectError(ctx, facts, attempts);

  const retryAfterSeconds =
    facts.retryAfterMs === undefined ? undefined : Math.ceil(facts.retryAfterMs / 1000);
  let parsed: unknown;
  if (facts.body.length > 0) {
    try {
      parsed = JSON.parse(facts.body.toString("utf8"));
    } catch {
      parsed = undefined;
    }
  }
  const errorBody = asErrorBody(parsed);
  const upstreamMessage = errorBody ? cleanUpstream(errorBody.message, ctx) : undefined;
  const code = errorBody?.code === undefined ? undefined : cleanUpstream(errorBody.code, ctx);
  const label = `HTTP ${status}${code ? ` ${code}` : ""}`;
  const nonErrorBody = errorBody ? undefined : describeNonErrorBody(facts);
  const what = nonErrorBody === undefined ? `: ${upstreamMessage}` : ` ${nonErrorBody}`;
  const hint = statusHint(status, ctx, retryAfterSeconds);
  return new PartsApiError({
    kind: "http",
    message: `${prefix(ctx)} failed with ${label}${what}${attemptsNote(attempts)}.${hint ? ` ${hint}` : ""}`,
    method: ctx.method,
    path: ctx.path,
    attempts,
    status,
    ...(code === undefined ? {} : { code }),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(upstreamMessage === undefined ? {} : { upstreamMessage }),
    ...(nonErrorBody === undefined ? {} : { detail: `HTTP ${status} ${nonErrorBody}` }),
  });
}

/** A 2xx whose body is the API's error shape: an error, reported with the status the body declares. */
export function errorFromErrorShape(
  ctx: RequestContext,
  wireStatus: number,
  body: { status: number; message: string; code?: string },
  attempts: number,
): PartsApiError {
  const upstreamMessage = cleanUpstream(body.message, ctx);
  const code = body.code === undefined ? undefined : cleanUpstream(body.code, ctx);
  return new PartsApiError({
    kind: "http",
    message: `${prefix(ctx)} failed: the API answered HTTP ${wireStatus} with an error body (status ${body.status}${code ? ` ${code}` : ""}): ${upstreamMessage}.`,
    method: ctx.method,
    path: ctx.path,
    attempts,
    status: body.status,
    ...(code === undefined ? {} : { code }),
    upstreamMessage,
  });
}

function redirectError(ctx: RequestContext, facts: ResponseFacts, attempts: number): PartsApiError {
  let target = "";
  if (facts.location) {
    try {
      const url = new URL(facts.location, ctx.origin);
      target = url.origin === ctx.origin ? " to another path of the same host" : ` to ${url.host}`;
    } catch {
      target = " to an unreadable location";
    }
  }
  return new PartsApiError({
    kind: "redirect",
    message: `${prefix(ctx)} was answered with a redirect (HTTP ${facts.status})${target}; redirects are not followed, so the access token was not sent there and that host was not contacted. Check the API base URL.`,
    method: ctx.method,
    path: ctx.path,
    attempts,
    status: facts.status,
    detail: `HTTP ${facts.status}${target}`,
  });
}

/** A success status with a body that is not the expected record (not JSON, wrong shape). */
export function contractError(
  ctx: RequestContext,
  problem: string,
  attempts: number,
  status: number,
): PartsApiError {
  return new PartsApiError({
    kind: "contract",
    message: `${prefix(ctx)}: the API answered HTTP ${status} ${problem}; this is a fault of the API (or of a proxy before it), not of the request.`,
    method: ctx.method,
    path: ctx.path,
    attempts,
    status,
    detail: `HTTP ${status} ${problem}`,
  });
}

/** `items[3].title: expected string, received number` for the first few issues of a zod error. */
export function describeIssues(error: z.ZodError, max = 3): string {
  const issues = error.issues;
  const parts = issues.slice(0, max).map((issue) => {
    let path = "";
    for (const key of issue.path) {
      path += typeof key === "number" ? `[${key}]` : path === "" ? String(key) : `.${String(key)}`;
    }
    const message = issue.message.replace(/^Invalid input: /, "");
    return `${path || "(root)"}: ${message}`;
  });
  const more = issues.length > max ? ` (and ${issues.length - max} more)` : "";
  return `${parts.join("; ")}${more}`;
}

export type FailureKind = "network" | "timeout" | "cancelled" | "too_large";

/** An attempt that ended without a response: what the transport reports. */
export class AttemptFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    /** Whether the request had been handed to a connected socket (bytes may have been written). */
    readonly started: boolean,
    /** The undici/socket error behind a network failure. */
    override readonly cause?: unknown,
    /** For too_large: the declared or counted size. */
    readonly bytes?: number,
  ) {
    super(kind);
  }
}

const NETWORK_TEXT: Record<string, string> = {
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was reset",
  ENOTFOUND: "the host name could not be resolved",
  EAI_AGAIN: "the host name could not be resolved (temporary DNS failure)",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  EPIPE: "the connection was closed while sending",
  UND_ERR_SOCKET: "the connection was closed by the other side",
  UND_ERR_CONNECT_TIMEOUT: "connecting timed out",
  UND_ERR_CLOSED: "the client was closed (the server is shutting down)",
  UND_ERR_DESTROYED: "the client was closed (the server is shutting down)",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "the response ended before its announced length",
  UND_ERR_HEADERS_OVERFLOW: "the response headers were too large",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate does not match its host name",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate could not be verified",
};

export function networkErrorCode(cause: unknown): string | undefined {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

export function errorFromFailure(
  ctx: RequestContext,
  failure: AttemptFailure,
  attempts: number,
  limits: { attemptTimeoutMs: number; maxResponseBytes: number },
): PartsApiError {
  const base = { method: ctx.method, path: ctx.path, attempts, cause: failure.cause };
  const p = prefix(ctx);
  const n = attemptsNote(attempts);
  switch (failure.kind) {
    case "too_large": {
      const size = `the response${failure.bytes ? ` (${failure.bytes} bytes or more)` : ""} is larger than the limit of ${limits.maxResponseBytes} bytes`;
      return new PartsApiError({
        ...base,
        kind: "too_large",
        message: `${p}: ${size} and was not read; ask for less (smaller pages, fewer ids) or raise PARTS_API_MAX_RESPONSE_BYTES.`,
        detail: size,
      });
    }
    case "timeout": {
      const unsure = ctx.idempotent
        ? " Try again later, or raise PARTS_API_ATTEMPT_TIMEOUT_MS."
        : " The request may or may not have taken effect: check before trying again.";
      return new PartsApiError({
        ...base,
        kind: "timeout",
        message: `${p}: no complete answer from ${ctx.origin} within ${limits.attemptTimeoutMs} ms${n}.${unsure}`,
      });
    }
    case "cancelled":
      return cancelledError(ctx, attempts);
    default: {
      const code = networkErrorCode(failure.cause);
      const text = (code && NETWORK_TEXT[code]) ?? "the request failed";
      const unsure =
        code === "UND_ERR_CLOSED" || code === "UND_ERR_DESTROYED"
          ? ""
          : ctx.idempotent || !failure.started
            ? " Check the API base URL and the network, or try again later."
            : " The request had been sent, so it may have taken effect: check before trying again.";
      return new PartsApiError({
        ...base,
        kind: "network",
        ...(code === undefined ? {} : { code }),
        message: `${p}: could not get an answer from ${ctx.origin}: ${text}${code ? ` (${code})` : ""}${n}.${unsure}`,
        detail: text,
      });
    }
  }
}

export function cancelledError(ctx: RequestContext, attempts: number): PartsApiError {
  return new PartsApiError({
    kind: "cancelled",
    message: `${prefix(ctx)}: cancelled by the client.`,
    method: ctx.method,
    path: ctx.path,
    attempts,
  });
}

export function deadlineError(ctx: RequestContext, attempts: number, waitedMs: number): PartsApiError {
  const tried =
    attempts === 0 ? "before any attempt" : attempts === 1 ? "over 1 attempt" : `over ${attempts} attempts`;
  return new PartsApiError({
    kind: "timeout",
    message: `${prefix(ctx)}: no answer within the time allowed for this call (waited ${Math.round(waitedMs)} ms ${tried}). The API at ${ctx.origin} is slow or unreachable: try again later, or raise PARTS_API_TIMEOUT_MS.${ctx.idempotent || attempts === 0 ? "" : " The request may or may not have taken effect: check before trying again."}`,
    method: ctx.method,
    path: ctx.path,
    attempts,
  });
}
