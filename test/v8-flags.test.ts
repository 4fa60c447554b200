// Every V8 flag the server sets is put back at its moment's end (src/v8-flags.ts): Node takes the
// code cache of its own modules only while every flag is at its default, and V8 stamps a code cache
// with the flags in force when it is made, refusing it under others. A code cache made before and
// after each step must be byte for byte the same.
import { execFileSync, spawnSync } from "node:child_process";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  checkCodeCache,
  compactingCollection,
  exposedGc,
  keepYoungGenerationSmall,
  resetHeapSizeFlags,
  undoKeepYoungGenerationSmall,
  undoWasmLiftoffOnly,
  wasmLiftoffOnly,
  youngGenerationSizedHere,
} from "../src/v8-flags";
import { repoRoot } from "./support/mcp-server";

const cacheOf = () => new Script("(function v8FlagsProbe() { return 1; })").createCachedData();

describe("the V8 flags the server sets", () => {
  it("stamp a code cache while they are set, so that a flag left on would be seen", () => {
    const before = cacheOf();
    wasmLiftoffOnly();
    const during = cacheOf();
    undoWasmLiftoffOnly();
    expect(during.equals(before)).toBe(false);
    expect(cacheOf().equals(before)).toBe(true);
  });

  it("leave no trace: the cache checksum, and mcp.json's heap size once the heap is made", () => {
    const before = cacheOf();
    checkCodeCache(true);
    expect(cacheOf().equals(before)).toBe(false);
    checkCodeCache(false);
    expect(cacheOf().equals(before)).toBe(true);
    setFlagsFromString("--max-semi-space-size=1"); // as mcp.json's command line sets it
    expect(cacheOf().equals(before)).toBe(false);
    resetHeapSizeFlags();
    expect(cacheOf().equals(before)).toBe(true);
  });

  it("keep the young generation at its first size once set, with no flag on Node's command line", () => {
    // A fresh Node churning short-lived objects: V8 grows its young generation to 32 MiB unless told.
    const youngGenerationMiB = (keepSmall: boolean) => {
      const script = `
        ${keepSmall ? 'require("tsx/cjs"); require("./src/v8-flags.ts").keepYoungGenerationSmall();' : ""}
        let kept = [];
        for (let i = 0; i < 2e6; i++) { kept.push({ i, s: "x" + i }); if (kept.length > 20000) kept = []; }
        const space = require("node:v8").getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
        process.stdout.write(String(space.space_size / 1048576));`;
      return Number(execFileSync(process.execPath, ["-e", script], { cwd: repoRoot, encoding: "utf8" }));
    };
    expect(youngGenerationMiB(false)).toBeGreaterThan(8);
    expect(youngGenerationMiB(true)).toBeLessThanOrEqual(2);
    const before = cacheOf();
    expect(youngGenerationSizedHere()).toBe(false);
    keepYoungGenerationSmall();
    expect(youngGenerationSizedHere()).toBe(true);
    expect(cacheOf().equals(before)).toBe(false);
    undoKeepYoungGenerationSmall();
    expect(youngGenerationSizedHere()).toBe(false);
    expect(cacheOf().equals(before)).toBe(true);
  });

  it("run V8's most thorough collection without a word on stderr, and give the young generation back", () => {
    const script = `
      require("tsx/cjs");
      const flags = require("./src/v8-flags.ts");
      const gc = flags.exposedGc();
      const emitWarning = process.emitWarning;
      let kept = [];
      flags.letYoungGenerationGrowOnce();
      for (let i = 0; i < 4e5; i++) { kept.push({ i }); if (kept.length > 20000) kept = []; }
      flags.keepYoungGenerationSmall();
      kept = [];
      const grown = flags.youngGenerationCapacity();
      flags.collectAllAvailableGarbage(gc);
      process.stdout.write(JSON.stringify({ grown, after: flags.youngGenerationCapacity(), same: process.emitWarning === emitWarning }));`;
    const child = spawnSync(process.execPath, ["-e", script], { cwd: repoRoot, encoding: "utf8" });
    expect(child.stderr).toBe("");
    const { grown, after, same } = JSON.parse(child.stdout);
    expect(after).toBeLessThan(grown);
    expect(same).toBe(true);
  });

  it("give a working gc() without leaving --expose-gc on, and compact only for that collection", () => {
    const before = cacheOf();
    const gc = exposedGc();
    expect(typeof gc).toBe("function");
    expect(cacheOf().equals(before)).toBe(true);
    compactingCollection(gc);
    expect(cacheOf().equals(before)).toBe(true);
  });
});
