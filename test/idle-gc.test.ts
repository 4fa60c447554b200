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
  it("grows while calls come and goes back to its idle size once the server is idle, burst after burst", {
    timeout: 40_000,
  }, () => {
    // A fresh Node whose young generation is kept small from its start, as the launcher keeps it;
    // each "call" leaves what it allocates alive across a collection or two, as a call in flight
    // does. Two bursts, each followed by an idle moment.
    const script = `
      require("tsx/cjs");
      const flags = require("./src/v8-flags.ts");
      flags.keepYoungGenerationSmall();
      const { collectWhenIdle } = require("./src/idle-gc.ts");
      const mib = () => flags.youngGenerationCapacity() / 1048576;
      const idle = mib();
      const burst = () => {
        let kept = [];
        for (let call = 0; call < 20000 && mib() <= idle; call++) {
          collectWhenIdle();
          for (let i = 0; i < 200; i++) kept.push({ call, i });
          if (kept.length > 20000) kept = [];
        }
        return mib();
      };
      const sizes = { idle, busy: [], later: [] };
      // Idle: 2 s, then a dozen collections 20 ms apart; on a loaded machine timers run late.
      const idleMoment = () =>
        new Promise((resolve) => {
          const started = Date.now();
          const poll = setInterval(() => {
            if (mib() > idle && Date.now() - started < 8000) return;
            clearInterval(poll);
            resolve();
          }, 50);
        });
      (async () => {
        for (let round = 0; round < 2; round++) {
          sizes.busy.push(burst());
          await idleMoment();
          sizes.later.push(mib());
        }
        process.stdout.write("\\n" + JSON.stringify(sizes));
      })();`;
    // V8's own account of its collections goes with a failure (--trace-gc writes to stdout).
    const output = execFileSync(process.execPath, ["--trace-gc", "-e", script], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const sizes = JSON.parse(output.slice(output.lastIndexOf("\n") + 1));
    const seen = `${JSON.stringify(sizes)}; the collections after the last burst:\n${output.split("\n").slice(-40).join("\n")}`;
    expect(sizes.idle, seen).toBeLessThanOrEqual(2);
    for (const busy of sizes.busy) expect(busy, seen).toBeGreaterThanOrEqual(4 * sizes.idle);
    for (const later of sizes.later) expect(later, seen).toBeLessThanOrEqual(sizes.idle);
  });
});
