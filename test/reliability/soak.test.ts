// The fault soak of scripts/soak.ts, smaller: read calls through the server spawned from mcp.json
// while the API answers 20% of requests with 429 (Retry-After 0 or 1) or 503, then creates under
// faults. Every read succeeds within its deadline; no create makes a duplicate part.
import { describe, expect, it } from "vitest";
import { runSoak, soakFaults } from "../../scripts/soak";

describe("fault soak", () => {
  it("the fault rules answer the asked share of requests, split 40/10/50", () => {
    const rules = soakFaults(0.2);
    let left = 1;
    const shares = rules.map((rule) => {
      const share = left * (rule.probability ?? 1);
      left -= share;
      return share;
    });
    expect(shares.map((s) => Math.round(s * 1000) / 1000)).toEqual([0.08, 0.02, 0.1]);
  });

  it("1,000 reads at concurrency 16 under 20% 429/503 all succeed; 100 creates make no duplicate", async () => {
    const report = await runSoak({ calls: 1_000, concurrency: 16, creates: 100, faultRate: 0.2, retries: 8 });
    const story = JSON.stringify(report);
    expect(report.failures, story).toBe(0);
    expect(report.successes).toBe(1_000);
    expect(report.overDeadline, story).toBe(0);
    // The faults were real: about 0.2 / 0.8 = 0.25 retries per call, each one logged.
    expect(report.retries, story).toBeGreaterThan(120);
    expect(report.retries, story).toBeLessThan(400);
    expect(report.retries).toBe(report.retriesByCount);
    expect(report.creates.calls).toBe(100);
    expect(report.creates.duplicates, story).toBe(0);
    expect(report.creates.successesNotStoredOnce, story).toBe(0);
    expect(report.creates.failedButStoredUnwarned, story).toBe(0);
    expect(report.creates.successes, story).toBeGreaterThan(50);
    expect(report.serverAlive).toBe(true);
  }, 60_000);
});
