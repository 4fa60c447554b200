// The inverted index of words once every page is read (src/search/word-index.ts): long lists of
// positions are packed, which the memory estimate shows, and nothing is lost, even for a word
// that gains a position afterwards.
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

  it("keeps every position of a packed word that gains one afterwards", () => {
    const index = filled();
    index.settle();
    index.add(900, ["bracket", "new"]);
    expect([...index.positionsOf("bracket")]).toHaveLength(501);
    expect([...index.positionsOf("bracket")].at(-1)).toBe(900);
    expect(index.has("new")).toBe(true);
  });
});
