// How one pasted line is read apart: quantities before and after the part, a version it names,
// code-like words, and what is left to search with (src/resolve/line.ts).
import { describe, expect, it } from "vitest";
import { readLine } from "../../src/resolve/line";
import { namesVersion } from "../../src/search";

describe("a pasted line", () => {
  it.each([
    ["2x Engine mount bracket", 2, "Engine mount bracket"],
    ["2 x Engine mount bracket", 2, "Engine mount bracket"],
    ["qty 4 Engine mount bracket", 4, "Engine mount bracket"],
    ["Qty: 4, Engine mount bracket", 4, "Engine mount bracket"],
    ["Engine mount bracket 4 pcs", 4, "Engine mount bracket"],
    ["Engine mount bracket - 6 pcs", 6, "Engine mount bracket"],
    ["Engine mount bracket x3", 3, "Engine mount bracket"],
    ["Engine mount bracket qty 12", 12, "Engine mount bracket"],
    ["12\tEngine mount bracket", 12, "Engine mount bracket"],
    ["Engine mount bracket\t12", 12, "Engine mount bracket"],
    ["Engine mount bracket; 12", 12, "Engine mount bracket"],
    ["Engine mount bracket, outboard, 7", 7, "Engine mount bracket, outboard"],
    ["ACME-BRK-10028 | 5", 5, "ACME-BRK-10028"],
  ])("%j is %i of %j", (line, quantity, text) => {
    expect(readLine(line)).toMatchObject({ quantity, text });
  });

  it.each([
    ["Cortical bone screw, Ø3.5 × 40", "a dimension, not a quantity"],
    ["Acetabular cup, 52 mm", "a size"],
    ["1. Engine mount bracket", "a list's numbering"],
    ["- Engine mount bracket", "a bullet"],
    ["6061-T6 bracket", "a designation"],
    ["42", "a number alone, with nothing to match"],
  ])("%j has no quantity: %s", (line) => {
    expect(readLine(line).quantity).toBeUndefined();
  });

  it.each([
    ["Hydraulic manifold, brake Rev B", "B", "Hydraulic manifold, brake"],
    ["Hydraulic manifold rev. c", "C", "Hydraulic manifold"],
    ["Hydraulic manifold, revision B", "B", "Hydraulic manifold"],
    ["version B Hydraulic manifold", "B", "Hydraulic manifold"],
    ["Hydraulic manifold v2", "2", "Hydraulic manifold"],
    ["2x Hydraulic manifold (Rev B)", "B", "Hydraulic manifold"],
  ])("%j names version %j of %j", (line, version, text) => {
    expect(readLine(line)).toMatchObject({ version, text });
  });

  it("takes words with digits as codes to look up exactly, at most two", () => {
    expect(readLine("Bracket ACME-BRK-10028 / D55-6055-501 prt_axae90esyp").codes).toEqual([
      "ACME-BRK-10028",
      "D55-6055-501",
    ]);
    expect(readLine("Engine mount bracket").codes).toEqual([]);
  });

  it("compares versions by name, with or without the word before it", () => {
    expect(namesVersion("Rev B", "B")).toBe(true);
    expect(namesVersion("Rev B", "REVB")).toBe(true);
    expect(namesVersion("rev-b", "b")).toBe(true);
    expect(namesVersion("Rev B", "C")).toBe(false);
    expect(namesVersion("Rev B2", "B")).toBe(false);
  });

  it("reads a hostile line in bounded time", () => {
    const started = performance.now();
    for (const line of ["1".repeat(300), `${"x ".repeat(150)}`, `${"qty ".repeat(75)}`, "\t".repeat(300)]) {
      readLine(line);
    }
    expect(performance.now() - started).toBeLessThan(500);
  });
});
