// The idle-time collection switches V8's compaction flag on for itself only. V8 stamps a code
// cache with the flags in force when it is made and refuses it under others, so a flag left on
// would silently spoil the cache the build's warm-up writes at its exit (scripts/code-cache.mjs).
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
    // The first call sets --expose-gc at once, as the launcher does at start-up (scripts/build.mjs).
    collectWhenIdle();
    const before = cacheOf();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1_999);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(cacheOf().equals(before)).toBe(true);
  });
});
