// The one error type of the client. An error carries facts: what was called, what happened, how
// many attempts, what the API said. Its `message` is one terse technical line for logs and tests;
// the words for people and models (what to do, which setting to change, said right for each way
// of serving) are written once, in src/mcp/messages.ts. Nothing here carries the token or a query
// string: the path is the API path without its query, and every text that came from the upstream
// is redacted and made safe to print (./upstream-text.ts). The errors are built from an answer in
// ./response-errors.ts, and from an attempt that got none in ./attempt-errors.ts.
import type { SecretSet } from "../log/logger";

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
