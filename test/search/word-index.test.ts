// The inverted index of words once every page is read (src/search/word-index.ts): long lists of
// positions are packed, which the memory estimate shows, and nothing is lost.
import { describe, expect, it } from "vitest";
import { WordIndex } from "../../src/search/word-index";

function filled(): WordIndex {
  const index = new WordIndex();
  for (let position = 0; position < 500; position++) {
    index.add(position, position % 5 === 0 ? ["bracket", "titanium", `p${position}`] : ["bracket"]);
  }
  return index;
}

describe("a word index once every page is read", () => {
  it("packs long lists of positions: the estimate falls, the positions stay", () => {
    const index = filled();
    const before = index.bytes;
    index.settle();
    expect(index.bytes).toBeLessThan(before - 2_000);
    expect([...index.positionsOf("bracket")]).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect([...index.positionsOf("titanium")]).toHaveLength(100);
    expect([...index.wordsStartingWith("p49")]).toEqual(["p490", "p495"]);
    expect([...index.mask(["brack"], 10, 20)]).toEqual(new Array(10).fill(1));
  });

  it("refuses a position for a packed word, rather than lose it (the index settles when no part can come)", () => {
    const index = filled();
    index.settle();
    expect(() => index.add(900, ["bracket"])).toThrow(/settled/);
  });
});
