import { describe, expect, it } from "vitest";
import { idf, scoreDirectly, termWeight } from "../src/bm25.js";

describe("BM25 as wink computes it", () => {
  it("gives the textbook value for a simple corpus", () => {
    // Three 2-term documents (avg length 2, so no length normalisation); "b" is in one of them.
    const docs = [{ terms: ["a", "b"] }, { terms: ["a", "c"] }, { terms: ["a", "d"] }];
    const scores = new Map<number, number>();
    scoreDirectly(docs, ["b"], (doc, score) => scores.set(docs.indexOf(doc), score));
    // idf = ln((3 − 1 + 0.5) / (1 + 0.5) + 1) = ln(8/3); tf part = 1·2.2 / (1.2·1 + 1) = 1.
    expect([...scores]).toEqual([[0, Number(Math.log(8 / 3).toFixed(9))]]);
  });

  it("keeps every IDF positive, even for a term in every document", () => {
    expect(idf(10, 10)).toBeGreaterThan(0);
    expect(idf(1_000_000, 1_000_000)).toBeGreaterThan(0);
    expect(idf(3, 1)).toBeGreaterThan(idf(3, 2));
  });

  it("saturates term frequency and penalises long documents", () => {
    const w = idf(10, 2);
    expect(termWeight(2, 10, 10, w)).toBeGreaterThan(termWeight(1, 10, 10, w));
    expect(termWeight(20, 10, 10, w)).toBeLessThan(2.2 * w);
    expect(termWeight(1, 40, 10, w)).toBeLessThan(termWeight(1, 10, 10, w));
  });

  it("matches any query term, counts a document once and honours `accept`", () => {
    const docs = [{ terms: ["x", "y"] }, { terms: ["y", "y", "z"] }, { terms: ["w"] }];
    const hits: Array<[number, number]> = [];
    scoreDirectly(docs, ["x", "y"], (doc, score) => hits.push([docs.indexOf(doc), score]));
    expect(hits.map(([doc]) => doc)).toEqual([0, 1]);
    for (const [, score] of hits) expect(score).toBeGreaterThan(0);

    const accepted: number[] = [];
    scoreDirectly(
      docs,
      ["x", "y"],
      (doc) => accepted.push(docs.indexOf(doc)),
      (doc) => doc !== docs[0],
    );
    expect(accepted).toEqual([1]);
  });
});
