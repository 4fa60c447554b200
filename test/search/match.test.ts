// Matching and cursors without the network: fragments as engineers write them find the record
// meant, hints name the closest records, and cursors refuse what they were not made for.
import { describe, expect, it } from "vitest";
import type { Standard } from "../../src/api/schemas";
import { MATERIALS, PROCESSES, STANDARDS } from "../../src/embedded/data/reference";
import { SearchRefusal } from "../../src/search";
import { decodeCursor, encodeCursor, searchDigest } from "../../src/search/cursor";
import { didYouMean, editDistance, rankRecords, sameCode } from "../../src/search/match";
import { compact, readings, words } from "../../src/search/text";

const standardFields = (s: Standard) => ({
  keys: [s.code],
  names: [s.name],
  qualifiers: s.governingBody ? [s.governingBody] : [],
});
const firstStandard = (text: string) => rankRecords(STANDARDS, text, standardFields)[0]?.code;

describe("text", () => {
  it("ignores case, accents, spacing and punctuation", () => {
    expect(words("  Querétaro — CNC-Milling (5-axis) ")).toEqual([
      "queretaro",
      "cnc",
      "milling",
      "5",
      "axis",
    ]);
    expect(compact("ASTM E8/E8M")).toBe("astme8e8m");
  });

  it("reads a trailing edition year as optional, and a part number as part of the code", () => {
    expect(readings("ASTM F3001-14")).toEqual(["ASTM F3001-14", "ASTM F3001"]);
    expect(readings("ISO 13485:2016")).toEqual(["ISO 13485:2016", "ISO 13485"]);
    expect(readings("ISO 2768-1")).toEqual(["ISO 2768-1"]);
  });
});

describe("search_reference's ranking", () => {
  it.each([
    ["F3001", "ASTM F3001"],
    ["astm f3001", "ASTM F3001"],
    ["ASTM F3001-14", "ASTM F3001"],
    ["ASTM E8", "ASTM E8/E8M"],
    ["AMS4928", "AMS 4928"],
    ["SAE AMS 4928", "AMS 4928"],
    ["ISO 13485:2016", "ISO 13485"],
    ["iso 10993-1", "ISO 10993-1"],
  ])("finds %s as %s first", (fragment, code) => {
    expect(firstStandard(fragment)).toBe(code);
  });

  it("finds materials and processes by name or code, the code's record first", () => {
    const material = (text: string) =>
      rankRecords(MATERIALS, text, (m) => ({ keys: [m.code], names: [m.name] })).map((m) => m.code);
    expect(material("Ti-6Al-4V").slice(0, 2)).toEqual(["ti64", "ti64-eli"]);
    expect(material("PA12")[0]).toBe("pa12");
    expect(material("polyamide 12")).toEqual(["pa12", "pa12-gf"]);
    const process = rankRecords(PROCESSES, "SLS", (p) => ({ keys: [p.code], names: [p.name] }));
    expect(process[0]?.code).toBe("sls");
  });

  it("allows a typo in longer words, two in the longest, only when nothing matches as written", () => {
    const material = (text: string, typos?: boolean) =>
      rankRecords(MATERIALS, text, (m) => ({ keys: [m.code], names: [m.name] }), { typos }).map(
        (m) => m.code,
      );
    expect(material("inconnel 718")).toEqual(["in718"]);
    expect(material("alumnium").length).toBeGreaterThan(1);
    expect(
      material("alumnium").every((code) =>
        /aluminium/i.test(MATERIALS.find((m) => m.code === code)?.name ?? ""),
      ),
    ).toBe(true);
    expect(material("alumnium", false)).toEqual([]);
    // The American spelling is no typo: it is folded, and matches without typos allowed.
    expect(material("aluminum", false)).toEqual(material("aluminium"));
    // Words under five letters carry no typo: "peak" is not "PEEK" here (didYouMean may say so).
    expect(material("peak")).toEqual([]);
    // A code is not a typo of another: no standard is offered for F3002 or ISO 13486.
    expect(rankRecords(STANDARDS, "ASTM F3002", standardFields)).toEqual([]);
    expect(rankRecords(STANDARDS, "ISO 13486", standardFields)).toEqual([]);
    // What matches as written is all there is: no near records are added to it.
    expect(material("polyamide 12")).toEqual(["pa12", "pa12-gf"]);
  });

  it("reads a process's trade name as the ISO/ASTM 52900 terms it stands for, after as written", () => {
    const processFields = (p: { code: string; name: string }) => ({ keys: [p.code], names: [p.name] });
    const process = (text: string) => rankRecords(PROCESSES, text, processFields).map((p) => p.code);
    expect(process("SLM")).toEqual(["lpbf"]);
    expect(process("DMLS")).toEqual(["lpbf"]);
    expect(process("PBF-LB/M")).toEqual(["lpbf"]);
    expect(process("FFF")).toEqual(["fdm"]);
    expect(process("DLP")).toEqual(["sla"]);
    // A catalogue that names the process as written is taken at its word.
    expect(process("SLS")).toEqual(["sls"]);
    const own = [...PROCESSES, { code: "slm-280", name: "SLM 280 melting", materialType: "metal" }];
    expect(rankRecords(own, "SLM", processFields).map((p) => p.code)).toEqual(["slm-280"]);
    // Standards are named by process too.
    expect(rankRecords(STANDARDS, "SLM", standardFields).map((s) => s.code)).toContain("AMS 7003");
  });

  it("requires every word, and returns all records by key without text", () => {
    expect(rankRecords(STANDARDS, "astm titanium zzz", standardFields)).toEqual([]);
    expect(rankRecords(STANDARDS, undefined, standardFields)).toHaveLength(STANDARDS.length);
  });
});

describe("didYouMean", () => {
  const materials = MATERIALS.map((m) => ({ keys: [m.code], names: [m.name], label: m.name }));

  it("names the closest records with their names", () => {
    expect(didYouMean("PA12", materials)).toBe(
      "did you mean pa12 (Polyamide 12 (PA12)) or pa12-gf (Glass-filled polyamide 12 (PA12 GF))?",
    );
    expect(didYouMean("Ti-6Al-4V", materials)).toMatch(
      /^did you mean ti64 \(Ti-6Al-4V \(Grade 5\)\) or ti64-eli/,
    );
  });

  it("offers the process a trade name stands for, not the one a letter away", () => {
    const processes = PROCESSES.map((p) => ({ keys: [p.code], names: [p.name], label: p.name }));
    expect(didYouMean("SLM", processes)).toBe("did you mean lpbf (Laser powder bed fusion (L-PBF))?");
    expect(didYouMean("EB-PBF", processes)).toBe("did you mean ebm (Electron beam melting (EB-PBF))?");
  });

  it("falls back to typos, and says nothing when nothing is close", () => {
    expect(didYouMean("peak", materials)).toBe("did you mean peek (PEEK)?");
    expect(didYouMean("unobtainium", materials)).toBeUndefined();
    expect(editDistance("pa21", "pa12", 2)).toBe(1);
    expect(editDistance("ti46", "ti64-eli", 2)).toBe(3);
  });
});

describe("cursors", () => {
  const digest = searchDigest("token-hash", { view: "ALL", filters: {}, readings: [["bracket"]] });

  it("carry a position and fit only their own search", () => {
    const cursor = encodeCursor(1234, digest);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{28}$/);
    expect(decodeCursor(cursor, digest)).toEqual({ position: 1234, matchedBefore: 0 });
    const other = searchDigest("token-hash", { view: "ALL", filters: {}, readings: [["mount"]] });
    expect(() => decodeCursor(cursor, other)).toThrow(/another search/);
  });

  it.each([
    ["empty", ""],
    ["short", "abc"],
    ["not base64url", "!!!!"],
    ["wrong version", "A".repeat(28)],
    ["10,000 characters", "A".repeat(10_000)],
    ["truncated", encodeCursor(1, digest).slice(0, -2)],
    ["a character added", `${encodeCursor(1, digest)}x`],
  ])("refuse garbage: %s", (_, garbage) => {
    expect(() => decodeCursor(garbage, digest)).toThrow(SearchRefusal);
    expect(() => decodeCursor(garbage, digest)).toThrow(/not one this server made/);
  });
});

describe("reading a code written another way", () => {
  const standards = STANDARDS.map((s) => ({
    keys: [s.code],
    names: [s.name],
    qualifiers: [s.governingBody ?? ""],
  }));
  it("finds the one record a code folds to", () => {
    expect(sameCode(standards, "AMS4928")).toEqual(["AMS 4928"]);
    expect(sameCode(standards, "SAE AMS 4928")).toEqual(["AMS 4928"]);
    expect(sameCode(standards, "astm f3001-14")).toEqual(["ASTM F3001"]);
    expect(sameCode(standards, "F3002")).toEqual([]);
  });

  it("gives every candidate when several fold alike, so that none is chosen for the caller", () => {
    const twins = [
      { keys: ["PA-12"], names: [] },
      { keys: ["pa12"], names: [] },
    ];
    expect(sameCode(twins, "PA 12")).toEqual(["PA-12", "pa12"]);
  });
});
