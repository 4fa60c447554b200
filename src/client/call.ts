// What one call of the client takes and gives: its options (cancellation, deadline, token,
// secrets), its input (path parameters, query, body) and its result type, per endpoint; and the
// deadline itself, one per tool call, shared by every request and retry of it.
import type { z } from "zod";
import type { EndpointBody, EndpointName, EndpointQuery, Endpoints } from "../api/endpoints";

export interface CallOptions {
  /** MCP cancellation: aborts the request in flight and any backoff wait. */
  signal?: AbortSignal;
  /** One per tool call, shared by every request the tool makes; default: a new one of timeoutMs. */
  deadline?: Deadline;
  /**
   * Token for this request instead of the client's (per-user mode of the HTTP transport). Once
   * the API accepts it (a 2xx answer), it is added to the logger's secrets.
   */
  token?: string;
  /**
   * Values of the request to keep out of everything the API sends back (error texts and the
   * result): a SAS URL's query string. Values shorter than MIN_SECRET_LENGTH are left to the
   * redaction patterns.
   */
  secrets?: readonly string[];
}

export interface CallInput<N extends EndpointName> {
  /** Values of the path template's `{name}` parameters; each becomes one encoded segment. */
  params?: Record<string, string>;
  /** Query parameters; undefined ones are omitted. */
  query?: EndpointQuery<N, "input">;
  body?: EndpointBody<N, "input">;
}

export type CallResult<N extends EndpointName> = z.infer<Endpoints[N]["response"]>;

/** The moment by which one tool call's upstream work must be done, shared by all its requests. */
export interface Deadline {
  /** Epoch milliseconds (`Date.now()` clock). */
  readonly at: number;
  /** Milliseconds left, never negative. */
  remaining(): number;
}

class FixedDeadline implements Deadline {
  constructor(readonly at: number) {}

  remaining(): number {
    return Math.max(this.at - Date.now(), 0);
  }
}

/** A deadline `ms` milliseconds from now. */
export function createDeadline(ms: number): Deadline {
  return new FixedDeadline(Date.now() + ms);
}
