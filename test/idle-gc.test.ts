// The idle-time collection runs once the server has been idle for a moment, and sets V8's flags
// for itself only. V8 stamps a code cache with the flags in force when it is made and refuses it
// under others, so a flag left on would silently spoil the cache the build's warm-up writes at its
// exit (scripts/code-cache.mjs), and Node's cache of its own modules (src/v8-flags.ts).
import { execFileSync } from "node:child_process";
import { Script } from "node:vm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { collectWhenIdle } from "../src/idle-gc";
import { repoRoot } from "./support/mcp-server";

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

describe("the young generation", () => {
  it("grows once while calls come and goes back to its idle size once the server is idle", () => {
    // A fresh Node whose young generation is kept small from its start, as the launcher keeps it;
    // each "call" leaves what it allocates alive across a collection or two, as a call in flight does.
    const script = `
      require("tsx/cjs");
      const flags = require("./src/v8-flags.ts");
      flags.keepYoungGenerationSmall();
      const { collectWhenIdle } = require("./src/idle-gc.ts");
      const mib = () => flags.youngGenerationBytes() / 1048576;
      const idle = mib();
      let kept = [];
      for (let call = 0; call < 20000 && mib() <= idle; call++) {
        collectWhenIdle();
        for (let i = 0; i < 200; i++) kept.push({ call, i });
        if (kept.length > 20000) kept = [];
      }
      const busy = mib();
      kept = [];
      setTimeout(() => process.stdout.write(JSON.stringify({ idle, busy, later: mib() })), 3500);`;
    const sizes = JSON.parse(
      execFileSync(process.execPath, ["-e", script], { cwd: repoRoot, encoding: "utf8" }),
    );
    expect(sizes.idle).toBeLessThanOrEqual(2);
    expect(sizes.busy).toBeGreaterThanOrEqual(8);
    expect(sizes.later).toBeLessThanOrEqual(sizes.idle);
  });
});
