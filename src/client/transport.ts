// One HTTP attempt over the pool, through undici's dispatch API: no stream objects, no
// AbortController. The handler counts body bytes as they arrive and aborts past the limit, enforces
// the attempt's time limit with one timer, and aborts on the caller's signal; aborting a request
// in flight destroys its socket, so the server sees the connection close.
import type { Dispatcher } from "undici";
import { AttemptFailure, isMalformedResponse } from "./errors";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface AttemptRequest {
  method: "GET" | "POST";
  /** Full request path (base prefix, path, query). */
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

const EMPTY = Buffer.alloc(0);

class AttemptHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private started = false;
  private done = false;
  private status = 0;
  private headers: RawResponse["headers"] = {};
  private chunks: Buffer[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly resolve: (response: RawResponse) => void,
    private readonly reject: (failure: AttemptFailure) => void,
    private readonly maxBytes: number,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.fail(new AttemptFailure("timeout", this.started)), timeoutMs);
    if (signal) {
      this.signal = signal;
      this.onAbort = () => this.fail(new AttemptFailure("cancelled", this.started));
      signal.addEventListener("abort", this.onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    this.started = true;
    // Timed out or cancelled while waiting for a connection: drop it now it has one.
    if (this.done) controller.abort(new Error("attempt abandoned"));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.done || statusCode < 200) return; // 1xx informational: the real head follows
    this.status = statusCode;
    this.headers = headers;
    const length = headers["content-length"];
    if (typeof length === "string") {
      const declared = Number(length);
      if (declared > this.maxBytes)
        this.fail(new AttemptFailure("too_large", true, undefined, declared), controller);
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.done) return;
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.chunks = [];
      this.fail(new AttemptFailure("too_large", true, undefined, this.size), controller);
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.done) return;
    this.finish();
    const { chunks } = this;
    const body =
      chunks.length === 1 ? (chunks[0] as Buffer) : chunks.length === 0 ? EMPTY : Buffer.concat(chunks);
    this.resolve({ status: this.status, headers: this.headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.done) return;
    this.fail(new AttemptFailure(isMalformedResponse(error) ? "malformed" : "network", this.started, error));
  }

  private finish(): void {
    this.done = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.signal && this.onAbort) this.signal.removeEventListener("abort", this.onAbort);
  }

  private fail(failure: AttemptFailure, controller = this.controller): void {
    if (this.done) return;
    this.finish();
    this.chunks = [];
    // Abort after settling: undici reports the abort back through onResponseError, ignored now.
    this.reject(failure);
    if (controller && !controller.aborted) controller.abort(new Error(`attempt ${failure.kind}`));
  }
}

/** Sends one request and reads its whole (bounded) body; rejects only with an AttemptFailure. */
export function sendAttempt(
  dispatcher: Dispatcher,
  request: AttemptRequest,
  maxBytes: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AttemptFailure("cancelled", false));
      return;
    }
    const handler = new AttemptHandler(resolve, reject, maxBytes, timeoutMs, signal);
    dispatcher.dispatch(
      { method: request.method, path: request.path, headers: request.headers, body: request.body ?? null },
      handler,
    );
  });
}
