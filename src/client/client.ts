// The one client of the Parts API: every tool and resource calls through it. One undici Pool per
// client (keep-alive, reused for the process), one request path that adds the headers, enforces
// the deadline and the per-attempt time limit, retries as decided (./retry.ts), parses the answer
// with the endpoint's zod schema (./answer.ts) and turns every failure into one PartsApiError.
// Redirects are never followed, and undici's own retry is not used: there is exactly one retry
// layer, here.
import { LRUCache } from "lru-cache";
import { Pool } from "undici";
import { type EndpointName, endpoints, expandPath } from "../api/endpoints";
import { entriesAtMost } from "../data/bounded-cache";
import type { Logger } from "../log/logger";
import { telemetry } from "../telemetry";
import { SecretSet } from "../text/redact";
import { parseAnswer, responseFacts } from "./answer";
import { type BatchEndpointName, type BatchRecord, batchGet } from "./batch";
import { type CallInput, type CallOptions, type CallResult, createDeadline } from "./call";
import {
  AttemptFailure,
  cancelledError,
  deadlineError,
  errorFromFailure,
  errorFromResponse,
  type PartsApiError,
  type RequestContext,
} from "./errors";
import {
  type BackoffOptions,
  backoffDelay,
  DEFAULT_BACKOFF,
  isRetryableStatus,
  parseRetryAfter,
  sleep,
} from "./retry";
import { sendAttempt } from "./transport";

export interface ClientOptions {
  /** scheme://host[:port][/prefix], as from loadApiConfig. */
  baseUrl: string;
  token: string;
  /** Default deadline of a call that is given none. */
  timeoutMs: number;
  attemptTimeoutMs: number;
  maxRetries: number;
  batchSize: number;
  maxResponseBytes: number;
  logger: Logger;
  /** Backoff between retries (tests shorten it). Default: 200 ms base, 4 s cap, full jitter. */
  backoff?: BackoffOptions;
  /** Most sockets open to the API at once. Default 16. */
  connections?: number;
}

const USER_AGENT = "parts-mcp";
/** undici's codes for a request made on a closed client: retrying cannot help. */
const CLIENT_CLOSED: ReadonlySet<string> = new Set(["UND_ERR_CLOSED", "UND_ERR_DESTROYED"]);
/** How long close() lets requests in flight finish before cutting them off. */
const CLOSE_GRACE_MS = 2_000;

interface Prepared {
  ctx: RequestContext;
  /** The call sent secrets of its own (a SAS URL): what the API answers is always redacted. */
  redactResult: boolean;
  wirePath: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export class PartsApiClient {
  /** undici's pool for the API's origin: keep-alive (its default), no retry or redirect interceptor. */
  private readonly pool: Pool;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly token: string;
  /** The client's own token in every form, for its requests' texts and answers. */
  private readonly ownSecrets: SecretSet;
  /** Each caller's token as a SecretSet, its encoded forms made once, not on every call. */
  private readonly callerSecrets = new LRUCache<string, SecretSet>(entriesAtMost(1_000));
  private readonly getHeaders: Record<string, string>;
  private readonly postHeaders: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly maxRetries: number;
  private readonly batchSize: number;
  private readonly maxResponseBytes: number;
  private readonly logger: Logger;
  private readonly backoff: BackoffOptions;
  private readonly limits: { attemptTimeoutMs: number; maxResponseBytes: number };
  private closed: Promise<void> | undefined;

  constructor(options: ClientOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.token = options.token;
    this.ownSecrets = new SecretSet([options.token]);
    this.getHeaders = headersFor(options.token, false);
    this.postHeaders = headersFor(options.token, true);
    this.timeoutMs = options.timeoutMs;
    this.attemptTimeoutMs = options.attemptTimeoutMs;
    this.maxRetries = options.maxRetries;
    this.batchSize = Math.max(1, options.batchSize);
    this.maxResponseBytes = options.maxResponseBytes;
    this.logger = options.logger;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.limits = { attemptTimeoutMs: options.attemptTimeoutMs, maxResponseBytes: options.maxResponseBytes };
    this.pool = new Pool(this.origin, { connections: options.connections ?? 16 });
  }

  /** Calls one endpoint and returns its response, parsed with the endpoint's schema. */
  async call<N extends EndpointName>(
    name: N,
    input: CallInput<N> = {},
    options?: CallOptions,
  ): Promise<CallResult<N>> {
    return this.execute(name, this.prepare(name, input, options), options) as Promise<CallResult<N>>;
  }

  /**
   * A batch get for any number of keys (./batch.ts): results in the order of each key's first
   * occurrence; keys the API did not return are reported in `missing`, never as an error.
   */
  batchGet<N extends BatchEndpointName>(
    name: N,
    keys: readonly string[],
    options?: CallOptions,
  ): Promise<{ items: BatchRecord<N>[]; missing: string[] }> {
    return batchGet((n, input, opts) => this.call(n, input, opts), name, keys, options, {
      batchSize: this.batchSize,
      timeoutMs: this.timeoutMs,
    });
  }

  /**
   * Closes the pool: requests in flight get CLOSE_GRACE_MS to finish, then their connections are
   * cut. Idempotent; calls made afterwards fail with a network error.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      const pool = this.pool;
      const cutOff = setTimeout(() => {
        pool.destroy().catch(() => {});
      }, CLOSE_GRACE_MS);
      cutOff.unref();
      try {
        await pool.close();
      } catch {
        // destroyed during the grace period
      } finally {
        clearTimeout(cutOff);
      }
    })();
    return this.closed;
  }

  private prepare<N extends EndpointName>(
    name: N,
    input: CallInput<N>,
    options: CallOptions | undefined,
  ): Prepared {
    const token = options?.token;
    const endpoint = endpoints[name];
    // expandPath throws "missing path parameter x" for a template value not given.
    const path = endpoint.path.includes("{") ? expandPath(endpoint.path, input.params ?? {}) : endpoint.path;
    const query = input.query === undefined ? "" : queryString(input.query as Record<string, unknown>);
    const hasBody = input.body !== undefined;
    const headers =
      token === undefined || token === this.token
        ? hasBody
          ? this.postHeaders
          : this.getHeaders
        : headersFor(token, hasBody);
    return {
      ctx: {
        method: endpoint.method,
        path,
        origin: this.origin,
        idempotent: endpoint.idempotent,
        secrets:
          (token === undefined || token === this.token) && !options?.secrets?.length
            ? this.ownSecrets
            : options?.secrets?.length
              ? new SecretSet([token ?? this.token, ...options.secrets])
              : this.secretsOf(token as string),
      },
      redactResult: options?.secrets !== undefined && options.secrets.length > 0,
      wirePath: this.basePath + path + query,
      headers,
      body: hasBody ? Buffer.from(JSON.stringify(input.body)) : undefined,
    };
  }

  private secretsOf(token: string): SecretSet {
    let secrets = this.callerSecrets.get(token);
    if (!secrets) {
      secrets = new SecretSet([token]);
      this.callerSecrets.set(token, secrets);
    }
    return secrets;
  }

  private async execute(
    name: EndpointName,
    req: Prepared,
    options: CallOptions | undefined,
  ): Promise<unknown> {
    const { ctx } = req;
    const signal = options?.signal;
    const deadline = options?.deadline ?? createDeadline(this.timeoutMs);
    const startedAt = Date.now();
    const request = {
      method: ctx.method as "GET" | "POST",
      path: req.wirePath,
      headers: req.headers,
      body: req.body,
    };

    // Whether any attempt may have reached the API (a create that never did is safe to repeat).
    let sent = false;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw cancelledError(ctx, attempt - 1, sent);
      const remaining = deadline.remaining();
      if (remaining <= 0) throw deadlineError(ctx, attempt - 1, sent, Date.now() - startedAt);
      const limitedByDeadline = remaining <= this.attemptTimeoutMs;
      const t0 = performance.now();
      const traced = telemetry.attempt(request, endpoints[name].path, this.origin, attempt);
      const logAttempt = (outcome: { status: number } | { failure: string }) => {
        traced?.end(outcome);
        this.logger.debug("upstream", {
          method: ctx.method,
          path: ctx.path,
          ...outcome,
          ms: Math.round((performance.now() - t0) * 100) / 100,
          attempt,
        });
      };

      let error: PartsApiError;
      let retryable: boolean;
      let retryAfterMs: number | undefined;
      try {
        const response = await sendAttempt(
          this.pool,
          traced?.request ?? request,
          this.maxResponseBytes,
          limitedByDeadline ? remaining : this.attemptTimeoutMs,
          signal,
        );
        sent = true;
        logAttempt({ status: response.status });
        const { status } = response;
        if (status >= 200 && status < 300) {
          const data = parseAnswer(name, ctx, req.redactResult, response, attempt);
          // The API accepted this caller's own token: from now on no log line may show it.
          if (options?.token !== undefined && options.token !== this.token)
            this.logger.addSecret(options.token);
          return data;
        }
        retryAfterMs = parseRetryAfter(response.headers["retry-after"]);
        error = errorFromResponse(ctx, { ...responseFacts(response), retryAfterMs }, attempt);
        retryable = isRetryableStatus(status, ctx.idempotent);
      } catch (failure) {
        if (!(failure instanceof AttemptFailure)) throw failure;
        sent ||= failure.started;
        logAttempt({ failure: failure.kind });
        if (failure.kind === "cancelled") throw cancelledError(ctx, attempt, sent);
        if (failure.kind === "timeout" && limitedByDeadline) {
          throw deadlineError(ctx, attempt, sent, Date.now() - startedAt);
        }
        error = errorFromFailure(ctx, failure, attempt, sent, this.limits);
        retryable =
          failure.kind !== "too_large" &&
          failure.kind !== "malformed" &&
          !(error.code !== undefined && CLIENT_CLOSED.has(error.code)) &&
          (ctx.idempotent ||
            (!failure.started && (failure.kind === "network" || failure.kind === "timeout")));
      }

      if (!retryable || attempt > this.maxRetries) throw error;
      const wait = retryAfterMs ?? backoffDelay(attempt, this.backoff);
      // No wait runs past the deadline: give the caller the error (with its Retry-After) at once.
      if (wait >= deadline.remaining()) throw error;
      this.logger.warn("retrying upstream request", {
        method: ctx.method,
        path: ctx.path,
        attempt,
        ...(error.status === undefined ? { failure: error.kind } : { status: error.status }),
        waitMs: wait,
      });
      try {
        await sleep(wait, signal);
      } catch {
        throw cancelledError(ctx, attempt, sent);
      }
    }
  }
}

function headersFor(token: string, withBody: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    accept: "application/json",
    // Said outright: an answer compressed anyway is reported by name, not as garbled JSON.
    "accept-encoding": "identity",
    "user-agent": USER_AGENT,
  };
  if (withBody) headers["content-type"] = "application/json";
  return headers;
}

function queryString(query: Record<string, unknown>): string {
  let out = "";
  for (const key in query) {
    const value = query[key];
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      out += `${out === "" ? "?" : "&"}${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`;
    }
  }
  return out;
}
