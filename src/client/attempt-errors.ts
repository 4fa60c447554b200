// The errors for an attempt that ended without an answer: the connection failed, the attempt's
// time ran out, the caller cancelled, the response was too large or not HTTP at all, or the
// call's deadline passed before another attempt could start. The transport reports how an attempt
// ended (AttemptFailure); these factories turn that into facts.
import { PartsApiError, type RequestContext } from "./errors";
import { cleanUpstream, MAX_HEADER_TEXT } from "./upstream-text";

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
