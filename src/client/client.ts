// The one client of the Parts API: every tool and resource calls through it. One undici Pool per
// client (keep-alive, reused for the process), one request path that adds the headers, enforces
// the deadline and the per-attempt time limit, retries as decided (./retry.ts), parses the answer
// with the endpoint's zod schema and turns every failure into one PartsApiError. Redirects are
// never followed, and undici's own retry is not used: there is exactly one retry layer, here.
import { Pool } from "undici";
import type { z } from "zod";
import {
  type EndpointBody,
  type EndpointName,
  type EndpointQuery,
  type Endpoints,
  endpoints,
  expandPath,
  PAGE_SIZE_MAX,
} from "../api/endpoints";
import type { Part } from "../api/schemas";
import type { Logger } from "../log";
import { createDeadline, type Deadline } from "./deadline";
import {
  AttemptFailure,
  asErrorBody,
  cancelledError,
  contractError,
  deadlineError,
  describeIssues,
  errorFromErrorShape,
  errorFromFailure,
  errorFromResponse,
  isJsonContentType,
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
import { type RawResponse, sendAttempt } from "./transport";

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

export interface CallOptions {
  /** MCP cancellation: aborts the request in flight and any backoff wait. */
  signal?: AbortSignal;
  /** One per tool call, shared by every request the tool makes; default: a new one of timeoutMs. */
  deadline?: Deadline;
  /** Token for this request instead of the client's (per-user mode of the HTTP transport). */
  token?: string;
}

export interface CallInput<N extends EndpointName> {
  /** Values of the path template's `{name}` parameters; each becomes one encoded segment. */
  params?: Record<string, string>;
  /** Query parameters; undefined ones are omitted. */
  query?: EndpointQuery<N, "input">;
  body?: EndpointBody<N, "input">;
}

export type CallResult<N extends EndpointName> = z.infer<Endpoints[N]["response"]>;

export type BatchEndpointName = "batchGetStandards" | "batchGetCriticalities" | "batchGetCategories";
export type BatchRecord<N extends BatchEndpointName> = CallResult<N>["items"][number];

export interface PartsPage {
  page: number;
  pageSize: number;
  items: Part[];
  hasMore: boolean;
}

export interface PagesQuery {
  /** First page to read (default 1). */
  page?: number;
  /** Default PAGE_SIZE_MAX (50): the fewest round trips. */
  pageSize?: number;
  view?: "CONSUMER" | "IP_OWNER";
}

/** Chunks of one batch get that run at once. */
const BATCH_CONCURRENCY = 4;
const USER_AGENT = "parts-mcp";
/** undici's codes for a request made on a closed client: retrying cannot help. */
const CLIENT_CLOSED: ReadonlySet<string> = new Set(["UND_ERR_CLOSED", "UND_ERR_DESTROYED"]);
/** How long close() lets requests in flight finish before cutting them off. */
const CLOSE_GRACE_MS = 2_000;

interface Prepared {
  ctx: RequestContext;
  wirePath: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export class PartsApiClient {
  private readonly pool: Pool;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly token: string;
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
    // Keep-alive is undici's default; no retry interceptor, no redirect interceptor.
    this.pool = new Pool(this.origin, { connections: options.connections ?? 16 });
  }

  /** Calls one endpoint and returns its response, parsed with the endpoint's schema. */
  async call<N extends EndpointName>(
    name: N,
    input: CallInput<N> = {},
    options?: CallOptions,
  ): Promise<CallResult<N>> {
    return this.execute(name, this.prepare(name, input, options?.token), options) as Promise<CallResult<N>>;
  }

  /**
   * Reads listParts page after page until `hasMore` is false or the consumer stops. A deadline
   * in `options` bounds the whole walk; without one, each page gets its own of timeoutMs.
   */
  async *pages(query: PagesQuery = {}, options?: CallOptions): AsyncGenerator<PartsPage, void, undefined> {
    let page = query.page ?? 1;
    const pageSize = query.pageSize ?? PAGE_SIZE_MAX;
    for (;;) {
      const result = await this.call("listParts", { query: { page, pageSize, view: query.view } }, options);
      yield { page, pageSize, items: result.items, hasMore: result.hasMore };
      if (!result.hasMore) return;
      if (result.items.length === 0) {
        const { ctx } = this.prepare("listParts", {}, options?.token);
        throw contractError(
          ctx,
          `page ${page} with no items but hasMore true (paging would never end)`,
          1,
          200,
        );
      }
      page += 1;
    }
  }

  /**
   * A batch get for any number of keys: de-duplicated, sent in chunks of batchSize (a few at
   * once, all under one deadline), results in the order of each key's first occurrence; keys the
   * API did not return are reported in `missing`, never as an error.
   */
  async batchGet<N extends BatchEndpointName>(
    name: N,
    keys: readonly string[],
    options?: CallOptions,
  ): Promise<{ items: BatchRecord<N>[]; missing: string[] }> {
    const byCode = name === "batchGetStandards";
    const unique = [...new Set(keys)];
    if (unique.length === 0) return { items: [], missing: [] };
    const shared: CallOptions = { ...options, deadline: options?.deadline ?? createDeadline(this.timeoutMs) };

    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += this.batchSize) chunks.push(unique.slice(i, i + this.batchSize));

    const found = new Map<string, BatchRecord<N>>();
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < chunks.length) {
        const chunk = chunks[next++] as string[];
        const body = byCode ? { codes: chunk } : { ids: chunk };
        let result: { items: BatchRecord<N>[] };
        try {
          result = (await this.call(name as BatchEndpointName, { body } as never, shared)) as typeof result;
        } catch (error) {
          failed = true; // the other workers start no further chunk
          throw error;
        }
        for (const item of result.items) {
          const key = byCode ? (item as { code: string }).code : (item as { id: string }).id;
          if (!found.has(key)) found.set(key, item);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, chunks.length) }, worker));

    const items: BatchRecord<N>[] = [];
    const missing: string[] = [];
    for (const key of unique) {
      const item = found.get(key);
      if (item === undefined) missing.push(key);
      else items.push(item);
    }
    return { items, missing };
  }

  /**
   * Closes the pool: requests in flight get CLOSE_GRACE_MS to finish, then their connections are
   * cut. Idempotent; calls made afterwards fail with a network error.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      const cutOff = setTimeout(() => {
        this.pool.destroy().catch(() => {});
      }, CLOSE_GRACE_MS);
      cutOff.unref();
      try {
        await this.pool.close();
      } catch {
        // destroyed during the grace period
      } finally {
        clearTimeout(cutOff);
      }
    })();
    return this.closed;
  }

  private prepare<N extends EndpointName>(name: N, input: CallInput<N>, token: string | undefined): Prepared {
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
        secret: token ?? this.token,
      },
      wirePath: this.basePath + path + query,
      headers,
      body: hasBody ? Buffer.from(JSON.stringify(input.body)) : undefined,
    };
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

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw cancelledError(ctx, attempt - 1);
      const remaining = deadline.remaining();
      if (remaining <= 0) throw deadlineError(ctx, attempt - 1, Date.now() - startedAt);
      const limitedByDeadline = remaining <= this.attemptTimeoutMs;
      const t0 = performance.now();
      const logAttempt = (outcome: { status: number } | { failure: string }) =>
        this.logger.debug("upstream", {
          method: ctx.method,
          path: ctx.path,
          ...outcome,
          ms: Math.round((performance.now() - t0) * 100) / 100,
          attempt,
        });

      let error: PartsApiError;
      let retryable: boolean;
      let retryAfterMs: number | undefined;
      try {
        const response = await sendAttempt(
          this.pool,
          request,
          this.maxResponseBytes,
          limitedByDeadline ? remaining : this.attemptTimeoutMs,
          signal,
        );
        logAttempt({ status: response.status });
        const { status } = response;
        if (status >= 200 && status < 300) return this.parse(name, ctx, response, attempt);
        retryAfterMs = parseRetryAfter(response.headers["retry-after"]);
        error = errorFromResponse(
          ctx,
          {
            status,
            statusText: response.statusText,
            contentType: header(response, "content-type"),
            location: header(response, "location"),
            retryAfterMs,
            body: response.body,
          },
          attempt,
        );
        retryable = isRetryableStatus(status, ctx.idempotent);
      } catch (failure) {
        if (!(failure instanceof AttemptFailure)) throw failure;
        logAttempt({ failure: failure.kind });
        if (failure.kind === "cancelled") throw cancelledError(ctx, attempt);
        if (failure.kind === "timeout" && limitedByDeadline) {
          throw deadlineError(ctx, attempt, Date.now() - startedAt);
        }
        error = errorFromFailure(ctx, failure, attempt, this.limits);
        retryable =
          failure.kind !== "too_large" &&
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
        throw cancelledError(ctx, attempt);
      }
    }
  }

  private parse(name: EndpointName, ctx: RequestContext, response: RawResponse, attempt: number): unknown {
    const { status, body } = response;
    const contentType = header(response, "content-type");
    if (body.length === 0) throw contractError(ctx, "with an empty body instead of JSON", attempt, status);
    if (contentType !== undefined && !isJsonContentType(contentType)) {
      const type = contentType.split(";")[0]?.trim();
      const html = /^text\/html$/i.test(type ?? "") ? "an HTML page: " : "";
      throw contractError(
        ctx,
        `with ${html}content-type ${type} instead of application/json`,
        attempt,
        status,
      );
    }
    let data: unknown;
    try {
      data = JSON.parse(body.toString("utf8"));
    } catch {
      throw contractError(ctx, "with a body that is not valid JSON (truncated or garbled)", attempt, status);
    }
    const result = endpoints[name].response.safeParse(data);
    if (result.success) return result.data;
    const errorBody = asErrorBody(data);
    if (errorBody) throw errorFromErrorShape(ctx, status, errorBody, attempt);
    throw contractError(
      ctx,
      `with a body that does not match the API's contract: ${describeIssues(result.error)}`,
      attempt,
      status,
    );
  }
}

function headersFor(token: string, withBody: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    accept: "application/json",
    "user-agent": USER_AGENT,
  };
  if (withBody) headers["content-type"] = "application/json";
  return headers;
}

function header(response: RawResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
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
