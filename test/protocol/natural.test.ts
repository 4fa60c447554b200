// Questions as people type them, answered right or told why (decisions.md, "Finding things,
// second round"), through the real stack in both protocol eras: on the sample data, and on a
// second catalogue named in other styles whose parts are labelled by hand with what they are.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Category, Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { CATEGORIES as OTHER_CATEGORIES, PARTS as OTHER_PARTS } from "../fixtures/other-catalogue";
import type { CatalogueApi } from "../support/catalogue-api";
import { connectInProcess, ERAS, everyVisiblePart, type InProcessServer } from "../support/in-process";
import { textOf } from "../support/mcp-server";
import { startOtherApi } from "../support/other-api";

interface Item {
  id: string;
  title: string;
  matched?: string;
  code?: string;
  kind?: string;
  readAs?: string;
}
interface Answer {
  items: Item[];
  complete: boolean;
  hint?: string;
  nextCursor?: string;
}

const answer = (result: CallToolResult): Answer => {
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as unknown as Answer;
};
const ids = (items: { id: string }[]) => items.map((item) => item.id).sort();
const codes = (items: Item[]) => items.map((item) => item.code).sort();

describe.each(ERAS)("questions as people type them (%s era)", (era) => {
  describe("on a catalogue named in other styles", () => {
    let api: CatalogueApi;
    let server: InProcessServer;
    const search = async (args: Record<string, unknown>) =>
      answer(await server.call("search_parts", { limit: 50, ...args }));
    const truly = (what: (is: (typeof OTHER_PARTS)[number]["is"]) => boolean | undefined) =>
      OTHER_PARTS.filter((part) => what(part.is))
        .map((part) => part.id)
        .sort();

    beforeAll(async () => {
      api = await startOtherApi();
      // connectInProcess reads only url, demoToken and close of the API it is given.
      const upstream = { url: api.url, demoToken: api.token, close: api.close } as unknown as TestApi;
      server = await connectInProcess({ era, sharedApi: upstream });
    });
    afterAll(async () => {
      await server?.close();
      await api?.close();
    });

    it("finds what parts are made of and what they are, whatever the catalogue calls it", async () => {
      for (const [text, expected] of [
        ["titanium brackets", truly((is) => is.titanium && is.bracket)],
        ["3D printed nylon housings", truly((is) => is.printed && is.nylon && is.housing)],
        ["flight critical", truly((is) => is.flightCritical)],
        ["aluminium housings", truly((is) => is.aluminium && is.housing)],
        ["aluminum housing", truly((is) => is.aluminium && is.housing)],
        ["machined parts", truly((is) => is.machined)],
        ["moulded", truly((is) => is.moulded)],
        ["molded", truly((is) => is.moulded)],
        ["additively manufactured titanium", truly((is) => is.printed && is.titanium)],
      ] as const) {
        const found = await search({ text });
        expect(found.complete, text).toBe(true);
        expect(ids(found.items), text).toEqual(expected);
        expect(expected.length, text).toBeGreaterThan(0);
      }
    });

    it("says through which record an item matched when its own words do not", async () => {
      const found = await search({ text: "titanium brackets" });
      const clip = found.items.find((item) => item.id === "o-01");
      expect(clip?.matched).toMatch(/material Ti-6Al-4V ELI \(titanium\)/);
      expect(clip?.matched).toMatch(/category Brackets & clips/);
      const hinge = found.items.find((item) => item.id === "o-02");
      // "bracket" is in its title: only the material is named.
      expect(hinge?.matched).toBe("material TiAl6V4 (titanium)");
    });

    it("reads a typo as the nearest known word, and says so", async () => {
      const found = await search({ text: "titanum brakcets" });
      expect(ids(found.items)).toEqual(truly((is) => is.titanium && is.bracket));
      expect(found.hint).toMatch(/"titanum" matched nothing as written and was read as titanium/);
    });

    it("takes a category with every category below it, and several codes in one filter", async () => {
      expect(ids((await search({ categoryId: "c-aero" })).items)).toEqual(truly((is) => is.aero));
      const twoMaterials = await search({ materialId: ["m-ti-eli", "m-tial6v4"] });
      expect(ids(twoMaterials.items)).toEqual(truly((is) => is.titanium));
      // Filters still combine with AND.
      const both = await search({ materialId: ["m-ti-eli", "m-tial6v4"], categoryId: "c-med" });
      expect(ids(both.items)).toEqual(["o-09"]);
    });

    it("offers every category, parents included, and finds records by family", async () => {
      const categories = answer(await server.call("search_reference", { kind: "category" }));
      expect(categories.items.map((item) => (item as unknown as Category).id).sort()).toEqual(
        OTHER_CATEGORIES.map((category) => category.id).sort(),
      );
      const reference = async (kind: string, text: string) =>
        codes(answer(await server.call("search_reference", { kind, text })).items);
      expect(await reference("material", "titanium")).toEqual(["m-ti-eli", "m-tial6v4"]);
      expect(await reference("material", "nylon")).toEqual(["m-pa2200", "m-pa66gf"]);
      expect(await reference("material", "stainless")).toEqual(["m-14404", "m-155"]);
      expect(await reference("material", "nickel superalloy")).toEqual(["m-hastx", "m-in718"]);
      expect(await reference("process", "3D printing")).toEqual(
        ["p-dmls", "p-fff", "p-mjf", "p-pbflb", "p-polyjet"].sort(),
      );
      expect(await reference("process", "machining")).toEqual(["p-5ax", "p-sinker", "p-swiss"]);
      expect(await reference("process", "casting")).toEqual(["p-hpdc", "p-lostwax"]);
    });

    it("searches every kind without kind, each item saying its kind", async () => {
      const found = answer(await server.call("search_reference", { text: "titanium" }));
      const kinds = new Set(found.items.map((item) => item.kind));
      expect(kinds).toEqual(new Set(["material", "standard"]));
      expect(
        found.items
          .filter((item) => item.kind === "material")
          .map((item) => item.code)
          .sort(),
      ).toEqual(["m-ti-eli", "m-tial6v4"]);
    });

    it("reads a code written another way as the one record it can be, and says so", async () => {
      const material = answer(await server.call("get_material", { code: "M-TIAL6V4" })) as unknown as Item;
      expect(material).toMatchObject({ code: "m-tial6v4", readAs: "m-tial6v4" });
      const standard = answer(
        await server.call("get_standard", { code: "astm f3302-23" }),
      ) as unknown as Item;
      expect(standard).toMatchObject({ code: "ASTM F3302", readAs: "ASTM F3302" });
      const resource = await server.client.readResource({ uri: "parts://standards/AMS2700" });
      expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({
        code: "AMS 2700",
        readAs: "AMS 2700",
      });
    });

    it("never answers empty without saying why", async () => {
      const clash = await search({ text: "titanium housings" });
      expect(clash.items).toEqual([]);
      expect(clash.hint).toMatch(/each word matches parts, but no part matches every word/);
      const filtered = await search({ text: "nylon", materialId: "m-7075" });
      expect(filtered.items).toEqual([]);
      expect(filtered.hint).toMatch(/the text matches 2 parts, materialId 1, but no part matches them all/);
      expect(filtered.hint).not.toMatch(/"nylon" is in no part/);
      const unknown = await search({ text: "zirconia" });
      expect(unknown.hint).toMatch(/"zirconia" is in no part's text nor in the name of any/);
      expect(unknown.complete).toBe(true);
    });
  });

  describe("on the sample data", () => {
    let api: TestApi;
    let server: InProcessServer;
    let visible: Part[];
    const search = async (args: Record<string, unknown>) =>
      answer(await server.call("search_parts", { limit: 50, ...args }));

    beforeAll(async () => {
      api = await startTestApi();
      server = await connectInProcess({ era, sharedApi: api });
      visible = await everyVisiblePart(server);
    });
    afterAll(async () => {
      await server?.close();
      await api?.close();
    });

    it("finds plurals, typos and parents as their singular, correct spelling and children", async () => {
      for (const [plural, singular] of [
        ["brackets", "bracket"],
        ["housings", "housing"],
        ["manifolds", "manifold"],
        ["cages", "cage"],
        ["brakcet", "bracket"],
      ]) {
        const many = await search({ text: plural });
        expect(many.items.length, plural).toBeGreaterThan(0);
        expect(ids(many.items), plural).toEqual(ids((await search({ text: singular })).items));
      }
      const tree = new Map(api.store.categories().map((category) => [category.id, category]));
      const under = (id: string | undefined, root: string): boolean =>
        id !== undefined && (id === root || under(tree.get(id)?.parentId, root));
      const structural = visible.filter((part) =>
        part.categoryIds?.some((id) => under(id, "cat-structural")),
      );
      expect(structural.length).toBeGreaterThan(0);
      const found = await search({ categoryId: "cat-structural", limit: 50 });
      const all = [...found.items];
      for (let cursor = found.nextCursor; cursor; ) {
        const next = await search({ categoryId: "cat-structural", cursor });
        all.push(...next.items);
        cursor = next.nextCursor;
      }
      expect(ids(all)).toEqual(ids(structural));
    });

    it("finds reference records by the words people use", async () => {
      for (const [kind, text] of [
        ["material", "titanium"],
        ["material", "nylon"],
        ["process", "3D printing"],
        ["process", "machining"],
      ]) {
        const found = answer(await server.call("search_reference", { kind, text }));
        expect(found.items.length, text).toBeGreaterThan(0);
      }
      // Every category on a part and every one above it, parents included (none is on a part).
      const tree = new Map(api.store.categories().map((category) => [category.id, category]));
      const expected = new Set<string>();
      for (let id of visible.flatMap((part) => part.categoryIds ?? [])) {
        for (; id !== undefined && !expected.has(id); id = tree.get(id)?.parentId as string) expected.add(id);
      }
      const parents = api.store.categories().filter((category) => category.parentId === undefined);
      for (const parent of parents) expect(expected.has(parent.id), parent.id).toBe(true);
      const categories = answer(await server.call("search_reference", { kind: "category" }));
      expect(ids(categories.items)).toEqual([...expected].sort());
      // Completion offers them too, parents included.
      const completion = await server.client.complete({
        ref: { type: "ref/resource", uri: "parts://categories/{id}" },
        argument: { name: "id", value: "cat-struct" },
      });
      expect(completion.completion.values).toContain("cat-structural");
    });

    it("reads PA12 and AMS4928 as the one record each can be", async () => {
      const material = answer(await server.call("get_material", { code: "PA12" })) as unknown as Item;
      expect(material).toMatchObject({ code: "pa12", readAs: "pa12" });
      const standard = answer(await server.call("get_standard", { code: "AMS4928" })) as unknown as Item;
      expect(standard).toMatchObject({ code: "AMS 4928", readAs: "AMS 4928" });
      // Exact codes are read as they are, with no readAs.
      expect(answer(await server.call("get_material", { code: "pa12" }))).not.toHaveProperty("readAs");
    });

    it("says up front that quotes, prices and suppliers are not in the API", () => {
      const instructions = server.client.getInstructions() ?? "";
      expect(instructions).toMatch(/quotes, offers, prices, suppliers/);
    });
  });
});
