// The client's errors, in one module. An error carries facts: what was called, what happened, how
// many attempts, what the API said. Its `message` is one terse technical line for logs and tests;
// the words for people and models (what to do, which setting to change, said right for each way
// of serving) are written once, in src/mcp/messages.ts. Nothing here carries the token or a query
// string: the path is the API path without its query, and every text that came from the upstream
// is redacted and made safe to print (./upstream-text.ts). The errors are built here from an
// answer that is not the record asked for (a status that is not a success, a redirect, never
// followed, the API's error shape inside a 2xx, a body the endpoint's schema rejects), and from
// an attempt that got none (the connection failed, the attempt's time ran out, the caller
// cancelled, the response was too large or not HTTP at all, or the call's deadline passed before
// another attempt could start; the transport reports how an attempt ended as AttemptFailure).
import type { z } from "zod";
import type { SecretSet } from "../text/redact";
import {
  asErrorBody,
  cleanUpstream,
  describeBody,
  MAX_HEADER_TEXT,
  parseJson,
  type ResponseFacts,
  unaskedEncoding,
} from "./upstream-text";

export type PartsApiErrorKind =
  | "http"
  | "network"
  | "timeout"
  | "cancelled"
  | "contract"
  | "too_large"
  | "redirect";

/** One thing wrong with a response body, as the endpoint's schema found it. */
export interface ContractIssue {
  path: readonly (string | number)[];
  message: string;
}

export interface PartsApiErrorFacts {
  kind: PartsApiErrorKind;
  method: string;
  /** API path (`/v1/parts/p%2F1`), without base-URL prefix or query string. */
  path: string;
  /** Attempts made, retries included (0 when the call's deadline was over before the first). */
  attempts: number;
  /** Whether the request may have reached the API: some attempt was handed to a connected socket. */
  sent: boolean;
  /** HTTP status (for kind "http": the status the API declared, also in a 200's error body). */
  status?: number;
  /** The `code` field of the API's error body; for a network failure, the socket error's code. */
  code?: string;
  /** Seconds the API asked to wait (Retry-After, capped at one day), when it did. */
  retryAfterSeconds?: number;
  /** The API's own `message`, redacted. */
  upstreamMessage?: string;
  /**
   * What was wrong, in a few technical words, when the API sent no message of its own: the body
   * of a contract failure, the size of a refused response, the network failure, a non-JSON error
   * page, a redirect's target host.
   */
  detail?: string;
  /** For a body that does not match the endpoint's schema: what the schema found. */
  issues?: readonly ContractIssue[];
  cause?: unknown;
}

export class PartsApiError extends Error implements PartsApiErrorFacts {
  override readonly name = "PartsApiError";
  readonly kind: PartsApiErrorKind;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly sent: boolean;
  readonly status?: number;
  readonly code?: string;
  readonly retryAfterSeconds?: number;
  readonly upstreamMessage?: string;
  readonly detail?: string;
  readonly issues?: readonly ContractIssue[];

  constructor(facts: PartsApiErrorFacts, message = technicalLine(facts)) {
    super(message, facts.cause === undefined ? undefined : { cause: facts.cause });
    this.kind = facts.kind;
    this.method = facts.method;
    this.path = facts.path;
    this.attempts = facts.attempts;
    this.sent = facts.sent;
    if (facts.status !== undefined) this.status = facts.status;
    if (facts.code !== undefined) this.code = facts.code;
    if (facts.retryAfterSeconds !== undefined) this.retryAfterSeconds = facts.retryAfterSeconds;
    if (facts.upstreamMessage !== undefined) this.upstreamMessage = facts.upstreamMessage;
    if (facts.detail !== undefined) this.detail = facts.detail;
    if (facts.issues !== undefined) this.issues = facts.issues;
  }
}

/** `GET /v1/parts/x: HTTP 404 NOT_FOUND: Part x not found (2 attempts)`. */
function technicalLine(facts: PartsApiErrorFacts): string {
  const status =
    facts.status === undefined ? "" : `HTTP ${facts.status}${facts.code ? ` ${facts.code}` : ""}`;
  const what =
    facts.upstreamMessage !== undefined
      ? `${status}: ${facts.upstreamMessage}`
      : (facts.detail ?? (status || facts.kind));
  const attempts = facts.attempts > 1 ? ` (${facts.attempts} attempts)` : "";
  return `${facts.method} ${facts.path}: ${what}${attempts}`;
}

/** What the factories need to know about the request. */
export interface RequestContext {
  method: string;
  path: string;
  /** scheme://host[:port] of the API, for network details. */
  origin: string;
  idempotent: boolean;
  /** Values to keep out of upstream texts: the token in use, a SAS URL's query. */
  secrets: SecretSet;
}

// Errors for an attempt that ended without an answer.

/**
 * How an attempt ended without a usable response: the transport's account. "malformed" is an
 * answer that is not valid HTTP (headers too large, a garbled status line): a fault of the
 * upstream that repeating would not cure.
 */
export type FailureKind = "network" | "timeout" | "cancelled" | "too_large" | "malformed";

/** An attempt that ended without a response: what the transport reports. */
export class AttemptFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    /** Whether the request had been handed to a connected socket (bytes may have been written). */
    readonly started: boolean,
    /** The undici/socket error behind a network or malformed failure. */
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
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate does not match its host name",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate could not be verified",
};

function networkErrorCode(cause: unknown): string | undefined {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/** undici's errors for an answer that is not valid HTTP/1.1. */
export function isMalformedResponse(cause: unknown): boolean {
  return (
    networkErrorCode(cause) === "UND_ERR_HEADERS_OVERFLOW" ||
    (cause instanceof Error && cause.name === "HTTPParserError")
  );
}

function malformedDetail(cause: unknown): string {
  if (networkErrorCode(cause) === "UND_ERR_HEADERS_OVERFLOW")
    return "a response whose headers are too many or too large (over 16 KiB)";
  const reason = cause instanceof Error ? /\(([^)]*)\)\s*$/.exec(cause.message)?.[1] : undefined;
  return `a response that is not valid HTTP/1.1${reason ? ` (${cleanUpstream(reason, [], MAX_HEADER_TEXT)})` : ""}`;
}

export function errorFromFailure(
  ctx: RequestContext,
  failure: AttemptFailure,
  attempts: number,
  sent: boolean,
  limits: { attemptTimeoutMs: number; maxResponseBytes: number },
): PartsApiError {
  const base = { method: ctx.method, path: ctx.path, attempts, sent, cause: failure.cause };
  switch (failure.kind) {
    case "too_large":
      return new PartsApiError({
        ...base,
        kind: "too_large",
        detail: `the response${failure.bytes ? ` (${failure.bytes} bytes or more)` : ""} is larger than the limit of ${limits.maxResponseBytes} bytes`,
      });
    case "malformed":
      return new PartsApiError({ ...base, kind: "contract", detail: malformedDetail(failure.cause) });
    case "timeout":
      return new PartsApiError({
        ...base,
        kind: "timeout",
        detail: `no complete answer from ${ctx.origin} within the attempt limit of ${limits.attemptTimeoutMs} ms`,
      });
    case "cancelled":
      return cancelledError(ctx, attempts, sent);
    default: {
      const code = networkErrorCode(failure.cause);
      const text = (code && NETWORK_TEXT[code]) ?? "the request failed";
      return new PartsApiError(
        {
          ...base,
          kind: "network",
          ...(code === undefined ? {} : { code }),
          detail: text,
        },
        `${ctx.method} ${ctx.path}: no answer from ${ctx.origin}: ${text}${code ? ` (${code})` : ""}${attempts > 1 ? ` (${attempts} attempts)` : ""}`,
      );
    }
  }
}

export function cancelledError(ctx: RequestContext, attempts: number, sent: boolean): PartsApiError {
  return new PartsApiError({
    kind: "cancelled",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent,
    detail: "cancelled by the client",
  });
}

export function deadlineError(
  ctx: RequestContext,
  attempts: number,
  sent: boolean,
  waitedMs: number,
): PartsApiError {
  const tried =
    attempts === 0 ? "before any attempt" : attempts === 1 ? "over 1 attempt" : `over ${attempts} attempts`;
  return new PartsApiError({
    kind: "timeout",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent,
    detail: `the call's deadline passed (waited ${Math.round(waitedMs)} ms ${tried})`,
  });
}

// Errors for an answer that is not the record asked for.

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
  const errorBody = unaskedEncoding(facts) === undefined ? asErrorBody(parseJson(facts.body)) : undefined;
  const upstreamMessage = errorBody ? cleanUpstream(errorBody.message, ctx.secrets) : undefined;
  const code =
    errorBody?.code === undefined ? undefined : cleanUpstream(errorBody.code, ctx.secrets, MAX_HEADER_TEXT);
  return new PartsApiError({
    kind: "http",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent: true,
    status,
    ...(code === undefined ? {} : { code }),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(upstreamMessage === undefined
      ? { detail: `HTTP ${status} ${describeBody(facts, "error")}` }
      : { upstreamMessage }),
  });
}

/** A 2xx whose body is the API's error shape: an error, reported with the status the body declares. */
export function errorFromErrorShape(
  ctx: RequestContext,
  wireStatus: number,
  body: { status: number; message: string; code?: string },
  attempts: number,
): PartsApiError {
  const upstreamMessage = cleanUpstream(body.message, ctx.secrets);
  const code = body.code === undefined ? undefined : cleanUpstream(body.code, ctx.secrets, MAX_HEADER_TEXT);
  const facts: PartsApiErrorFacts = {
    kind: "http",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent: true,
    status: body.status,
    ...(code === undefined ? {} : { code }),
    upstreamMessage,
  };
  return new PartsApiError(
    facts,
    `${ctx.method} ${ctx.path}: HTTP ${wireStatus} carrying an error body: ${body.status}${code ? ` ${code}` : ""}: ${upstreamMessage}`,
  );
}

function redirectError(ctx: RequestContext, facts: ResponseFacts, attempts: number): PartsApiError {
  let target = "";
  if (facts.location) {
    try {
      const url = new URL(facts.location, ctx.origin);
      target =
        url.origin === ctx.origin
          ? " to another path of the same host"
          : ` to ${cleanUpstream(url.host, [])}`;
    } catch {
      target = " to an unreadable location";
    }
  }
  return new PartsApiError({
    kind: "redirect",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent: true,
    status: facts.status,
    detail: `HTTP ${facts.status}${target}, not followed`,
  });
}

/** A success status with a body that is not the expected record (not JSON, wrong shape). */
export function contractError(
  ctx: RequestContext,
  detail: string,
  attempts: number,
  status: number | undefined,
  issues?: readonly ContractIssue[],
): PartsApiError {
  return new PartsApiError({
    kind: "contract",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent: true,
    ...(status === undefined ? {} : { status }),
    detail,
    ...(issues === undefined ? {} : { issues }),
  });
}

/** The issues of a zod error as facts: paths and messages, upstream text made safe to print. */
export function contractIssues(error: z.ZodError, secrets: SecretSet): ContractIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((key) =>
      typeof key === "number" ? key : cleanUpstream(String(key), secrets, MAX_HEADER_TEXT),
    ),
    message: cleanUpstream(issue.message, secrets),
  }));
}
