// Every V8 flag the server sets is put back at its moment's end (src/v8-flags.ts): Node takes the
// code cache of its own modules only while every flag is at its default, and V8 stamps a code cache
// with the flags in force when it is made, refusing it under others. A code cache made before and
// after each step must be byte for byte the same.
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  checkCodeCache,
  compactingCollection,
  exposedGc,
  resetHeapSizeFlags,
  undoWasmLiftoffOnly,
  wasmLiftoffOnly,
} from "../src/v8-flags";

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

  it("give a working gc() without leaving --expose-gc on, and compact only for that collection", () => {
    const before = cacheOf();
    const gc = exposedGc();
    expect(typeof gc).toBe("function");
    expect(cacheOf().equals(before)).toBe(true);
    compactingCollection(gc);
    expect(cacheOf().equals(before)).toBe(true);
  });
});
