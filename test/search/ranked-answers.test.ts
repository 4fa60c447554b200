// The whole answers kept per index (src/search/ranked-answers.ts): a repeat is cut from the kept
// answer, the least recently used go first, and an answer larger than the room is never kept.
import { describe, expect, it } from "vitest";
import { PartIndex } from "../../src/search/part-index";
import { RankedAnswers } from "../../src/search/ranked-answers";
import { RankedAnswer } from "../../src/search/ranking";

const answerOf = (n: number) =>
  new RankedAnswer(
    Array.from({ length: n }, (_, position) => ({ position, reading: 0, viaReference: 0 })),
    Array.from({ length: n }, () => ({ quality: 0 })),
  );

describe("ranked answers kept for an index", () => {
  it("make an answer once, keep the recently used, and never keep one past the room", () => {
    const answers = new RankedAnswers();
    const index = new PartIndex();
    let made = 0;
    const get = (key: string, n = 3) =>
      answers.get(index, key, () => {
        made += 1;
        return answerOf(n);
      });
    get("first");
    get("first");
    expect(made).toBe(1);
    // 300 more answers: at most 256 are kept, "first" among them as it is used all along.
    for (let i = 0; i < 300; i++) {
      get(`other ${i}`);
      get("first");
    }
    expect(made).toBe(301);
    get("other 0");
    expect(made).toBe(302);
    // 11 bytes a match: 10,000 matches are over the 64 KiB a small index may keep.
    get("large", 10_000);
    get("large", 10_000);
    expect(made).toBe(304);
  });
});
