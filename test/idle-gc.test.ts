// The idle-time collection runs once the server has been idle for a moment, and sets V8's flags
// for itself only. V8 stamps a code cache with the flags in force when it is made and refuses it
// under others, so a flag left on would silently spoil the cache the build's warm-up writes at its
// exit (scripts/code-cache.mjs), and Node's cache of its own modules (src/v8-flags.ts).
import { Script } from "node:vm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { collectWhenIdle } from "../src/idle-gc";

const cacheOf = () => new Script("(function idleGcProbe() { return 1; })").createCachedData();

afterEach(() => {
  vi.useRealTimers();
});

describe("the idle-time collection", () => {
  it("runs once the server is idle and leaves V8's flags as it found them", () => {
    vi.useFakeTimers();
    const before = cacheOf();
    collectWhenIdle();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1_999);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(cacheOf().equals(before)).toBe(true);
  });
});
