import { describe, expect, it } from "vitest";
import { createDeadline } from "../../src/client";
import { backoffDelay, isRetryableStatus, parseRetryAfter, sleep } from "../../src/client/retry";

describe("retry policy", () => {
  it("reads retry 429 and 5xx gateway statuses, nothing else", () => {
    for (const status of [429, 500, 502, 503, 504]) expect(isRetryableStatus(status, true)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 410, 422, 501, 505])
      expect(isRetryableStatus(status, true)).toBe(false);
  });

  it("non-idempotent requests retry only 429", () => {
    expect(isRetryableStatus(429, false)).toBe(true);
    for (const status of [500, 502, 503, 504]) expect(isRetryableStatus(status, false)).toBe(false);
  });

  it("backoff is exponential with full jitter, capped", () => {
    const options = { baseMs: 100, capMs: 1_000 };
    expect(backoffDelay(1, options, () => 0.999)).toBe(99);
    expect(backoffDelay(3, options, () => 0.999)).toBe(399);
    expect(backoffDelay(10, options, () => 0.999)).toBe(999);
    expect(backoffDelay(3, options, () => 0)).toBe(0);
  });

  it("Retry-After: delta-seconds and HTTP-date", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(parseRetryAfter("2", now)).toBe(2_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("1.5", now)).toBe(1_500);
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:00:03 GMT", now)).toBe(3_000);
    expect(parseRetryAfter("Mon, 31 Dec 2029 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(["4", "9"], now)).toBe(4_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("-3", now)).toBeUndefined();
  });

  it("sleep ends early on abort", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 20);
    const start = Date.now();
    await expect(sleep(5_000, controller.signal)).rejects.toThrow("stop");
    expect(Date.now() - start).toBeLessThan(1_000);
  });

  it("a deadline counts down and never goes negative", async () => {
    const deadline = createDeadline(50);
    expect(deadline.remaining()).toBeGreaterThan(0);
    expect(deadline.remaining()).toBeLessThanOrEqual(50);
    await sleep(70);
    expect(deadline.remaining()).toBe(0);
    expect(deadline.at).toBeLessThanOrEqual(Date.now());
  });
});
