// Real sessions, played as people type them (issue 37): the same phrases on the sample data and on
// the third catalogue (test/fixtures/third-catalogue.ts), each answer checked for what a person
// would hold against it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import type { PartSearch } from "../../src/search";
import * as third from "../fixtures/third-catalogue";
import { type CatalogueApi, catalogueOf, startCatalogueApi } from "../support/catalogue-api";
import { callWith, everyPart, type Replica, searchOver } from "./support";

const PHRASES = [
  "titanium brackets",
  "parts needing AS9100",
  "engine mount bracket Rev B",
  "SLM parts",
  "DMLS Inconel 718",
  "housings",
  "anodised",
  "aluminium",
];

interface Setting {
  search: PartSearch;
  parts: Part[];
  close(): Promise<void>;
}

/** A setting over a search of its own, closed with its API. */
const settingOf = (replica: Replica, api: { close(): Promise<void> }, parts: Part[]): Setting => ({
  search: replica.search,
  parts,
  close: async () => {
    await replica.close();
    await api.close();
  },
});

const settings: [string, () => Promise<Setting>][] = [
  [
    "the sample data",
    async () => {
      const api: TestApi = await startTestApi();
      const replica = searchOver(api.url, api.demoToken);
      return settingOf(replica, api, await everyPart(replica.client, callWith()));
    },
  ],
  [
    "the third catalogue",
    async () => {
      const catalogue = catalogueOf(third);
      const api: CatalogueApi = await startCatalogueApi(catalogue);
      return settingOf(searchOver(api.url, api.token), api, catalogue.parts);
    },
  ],
];

describe.each(settings)("a session on %s", (name, open) => {
  let setting: Setting;
  beforeAll(async () => {
    setting = await open();
  });
  afterAll(() => setting.close());

  it.each(PHRASES)("%s: counted, explained when empty, never through a false friend", async (text) => {
    const answer = await setting.search.searchParts({ text, limit: 50 }, callWith());
    // A phrase names parts the catalogue has (the third has no brackets): empty would be wrong.
    if (!(name === "the third catalogue" && /bracket/.test(text)))
      expect(answer.items.length, text).toBeGreaterThan(0);
    // The summary counts the answer: the total once known, else the matches so far, in words that
    // agree with the number; with more to come and a total, it says how many are shown here.
    const counted = answer.total ?? answer.matchedSoFar;
    expect(answer.summary).toMatch(new RegExp(`\\b${counted} ${counted === 1 ? "match" : "matches"}\\b`));
    if (answer.nextCursor !== undefined && answer.total !== undefined)
      expect(answer.summary).toMatch(new RegExp(`^${answer.items.length} of ${answer.total} `));
    expect(answer.matchedSoFar).toBeGreaterThanOrEqual(answer.items.length);
    if (answer.complete) expect(answer.total).toBe(answer.items.length);
    if (answer.items.length === 0) expect(answer.hint).toMatch(/Nothing found/);
    const byId = new Map(setting.parts.map((part) => [part.id, part]));
    for (const item of answer.items) {
      const part = byId.get(item.id) as Part;
      // "Rev B" is a version, not the first letter of a word; "aluminium" is no ceramic.
      if (/rev b/i.test(text)) expect(part.versionName).toBe("Rev B");
      if (text === "aluminium") expect(part.materialId ?? "").not.toMatch(/al2o3|alumina/);
    }
    // The filler words, and only those, are left out, in order, as the search reads them ("part").
    const fillers = text.split(" ").filter((word) => word === "needing" || word === "parts");
    const ignored = answer.ignoredWords ?? [];
    expect(ignored).toHaveLength(fillers.length);
    for (const [i, word] of ignored.entries()) expect(fillers[i]?.startsWith(word), fillers[i]).toBe(true);
  });
});

describe("a near code is named only for a word long enough to be one", () => {
  it('"M6 hex bolt" names no record one edit from "m6" (AlSi10Mg\'s "mg" is no near code)', async () => {
    const [, sampleData] = settings[0] as (typeof settings)[number];
    const setting = await sampleData();
    try {
      const answer = await setting.search.searchParts({ text: "M6 hex bolt" }, callWith());
      expect(answer.items).toEqual([]);
      expect(answer.hint).toMatch(/Nothing found/);
      expect(answer.hint).not.toMatch(/one character from/);
    } finally {
      await setting.close();
    }
  });
});
