// The retry policy of ../shared/spec/decisions.md ("Retries, time-outs"), in one place.

/** Statuses a read retries; a non-idempotent request retries only 429. Every other status is final. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number, idempotent: boolean): boolean {
  return status === 429 || (idempotent && RETRYABLE_STATUSES.has(status));
}

export interface BackoffOptions {
  /** First retry waits up to this long. */
  baseMs: number;
  /** No computed wait exceeds this (a server's Retry-After may). */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 200, capMs: 4_000 };

/** Exponential backoff with full jitter: uniform in [0, min(cap, base * 2^(retry-1))). */
export function backoffDelay(
  retry: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/** The longest wait a Retry-After is taken to ask for: a 20-digit number or a date years ahead
 * means "not soon", and must neither overflow nor be repeated to the user as such. */
const RETRY_AFTER_CAP_MS = 24 * 60 * 60 * 1000;

/**
 * A Retry-After header value (delta-seconds or HTTP-date) as milliseconds to wait, at most
 * RETRY_AFTER_CAP_MS, or undefined when absent or unreadable. A date in the past gives 0.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.min(Math.round(Number(text) * 1000), RETRY_AFTER_CAP_MS);
  // An HTTP-date always names a month ("Wed, 21 Oct 2015 07:28:00 GMT"); "-3" is no date.
  const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), RETRY_AFTER_CAP_MS);
}

/** Resolves after `ms`, or rejects with `signal.reason` as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
