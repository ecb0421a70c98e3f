import { describe, expect, it } from "vitest";
import {
  compareCandidates,
  fuseRrf,
  fuseWeighted,
  keywordOnly,
  listAgreement,
  normalizeWeights,
  queryWeights,
  vectorOnly,
} from "../../src/search/fusion.js";
import type { StoredChunk, StoreHit } from "../../src/store/records.js";

const chunk = (id: string, path = `${id}.md`, startLine = 1): StoredChunk => ({
  id,
  path,
  source: "memory",
  tier: "long",
  startLine,
  endLine: startLine,
  headings: [],
  text: id,
  hash: id,
});
const hits = (...pairs: Array<[string, number]>): StoreHit[] =>
  pairs.map(([id, score]) => ({ chunk: chunk(id), score }));

describe("fusion", () => {
  it("normalises weights to sum 1", () => {
    expect(normalizeWeights(0.7, 0.3)).toEqual({ vector: 0.7, text: 0.3 });
    expect(normalizeWeights(7, 3).vector).toBeCloseTo(0.7);
    expect(normalizeWeights(2, 0)).toEqual({ vector: 1, text: 0 });
  });

  it("weighted: BM25 relative to the best, cosines min-max scaled, then weighed; merged by chunk id", () => {
    const out = fuseWeighted(
      hits(["a", 0.9], ["b", 0.5], ["d", 0.1]),
      hits(["b", 12], ["c", 3], ["e", 2]),
      { vector: 0.7, text: 0.3 },
    );
    const byId = Object.fromEntries(out.map((c) => [c.chunk.id, c]));
    expect(byId.a?.score).toBeCloseTo(0.7); // best cosine, no keyword match
    expect(byId.b?.score).toBeCloseTo(0.7 * 0.5 + 0.3); // cosine 0.5 of 0.1..0.9, best BM25
    expect(byId.c?.score).toBeCloseTo(0.3 * 0.25); // BM25 3 of the best 12
    expect(byId.d?.score).toBe(0);
    expect(byId.b?.scores).toEqual({ vector: 0.5, text: 12 });
  });

  it("weighted: a model's cosine range does not matter, only its order", () => {
    const compressed = fuseWeighted(hits(["a", 0.95], ["b", 0.9]), hits(["b", 4]), {
      vector: 0.5,
      text: 0.5,
    });
    const spread = fuseWeighted(hits(["a", 0.6], ["b", 0.1]), hits(["b", 4]), {
      vector: 0.5,
      text: 0.5,
    });
    expect(compressed.map((c) => c.score)).toEqual(spread.map((c) => c.score));
  });

  it("weighted: negative cosine counts as 0", () => {
    const out = fuseWeighted(hits(["a", 0.4], ["b", -0.4], ["c", -0.5]), [], {
      vector: 1,
      text: 0,
    });
    expect(out.map((c) => c.score)).toEqual([1, 0, 0]);
    expect(out[1]?.scores.vector).toBe(-0.4);
  });

  it("agreement: the share of the best chunks both lists hold", () => {
    const v = hits(["a", 0.9], ["b", 0.8], ["c", 0.7], ["d", 0.6]);
    expect(listAgreement(v, hits(["d", 9], ["c", 8], ["x", 7], ["y", 6]))).toBe(0.5);
    expect(listAgreement(v, hits(["x", 9]))).toBe(0); // depth 1: a vs x
    expect(listAgreement(v, hits(["a", 9]))).toBe(1);
    expect(listAgreement([], hits(["a", 9]))).toBe(0);
    expect(listAgreement(v, hits(["d", 9], ["c", 8]), 1)).toBe(0);
  });

  it("query weights: the vector share scales with agreement², never exactly 0; fixed keeps the split", () => {
    const configured = { vector: 0.7, text: 0.3 };
    const v = hits(["a", 0.9], ["b", 0.8]);
    const agree = queryWeights(configured, "agreement", v, hits(["b", 5], ["a", 4]));
    expect(agree).toEqual({ vector: 0.7, text: expect.closeTo(0.3) });
    const half = queryWeights(configured, "agreement", v, hits(["a", 5], ["z", 4]));
    expect(half.vector).toBeCloseTo(0.7 * 0.25);
    expect(half.vector + half.text).toBeCloseTo(1);
    const none = queryWeights(configured, "agreement", v, hits(["y", 5], ["z", 4]));
    expect(none.vector).toBeCloseTo(0.7e-6, 9);
    expect(queryWeights(configured, "fixed", v, hits(["y", 5]))).toBe(configured);
    // One list empty: the other answers alone, whatever the weighting.
    expect(queryWeights(configured, "agreement", v, [])).toEqual({ vector: 1, text: 0 });
    expect(queryWeights(configured, "fixed", [], hits(["y", 5]))).toEqual({ vector: 0, text: 1 });
  });

  it("agreement keeps a weak model's list from reordering the keyword hits", () => {
    // The vectors' best chunks have nothing in common with the keywords': keyword order stands.
    const text = hits(["k1", 9], ["k2", 8], ["k3", 7], ["k4", 1]);
    const vectors = hits(["v1", 0.9], ["v2", 0.88], ["v3", 0.87], ["v4", 0.86], ["k4", 0.8]);
    for (const fuse of [
      (w: { vector: number; text: number }) => fuseWeighted(vectors, text, w),
      (w: { vector: number; text: number }) => fuseRrf(vectors, text, w, 10),
    ]) {
      const w = queryWeights({ vector: 0.7, text: 0.3 }, "agreement", vectors, text);
      const order = fuse(w)
        .sort(compareCandidates)
        .map((c) => c.chunk.id);
      expect(order.slice(0, 4)).toEqual(["k1", "k2", "k3", "k4"]);
      // …and the vectors' own finds follow in their cosine order.
      expect(order.slice(4)).toEqual(["v1", "v2", "v3", "v4"]);
    }
  });

  it("rrf: first in both lists scores 1; one list alone scores in proportion", () => {
    const out = fuseRrf(
      hits(["a", 0.9], ["b", 0.8]),
      hits(["a", 5], ["c", 4]),
      { vector: 0.5, text: 0.5 },
      10,
    );
    const byId = Object.fromEntries(out.map((c) => [c.chunk.id, c.score]));
    expect(byId.a).toBeCloseTo(1);
    expect(byId.b).toBeCloseTo(0.5 * (11 / 12));
    expect(byId.c).toBeCloseTo(0.5 * (11 / 12));
  });

  it("rrf with one list empty still reaches 1 for its top hit", () => {
    const [top] = fuseRrf([], hits(["x", 2]), { vector: 0.7, text: 0.3 }, 60);
    expect(top?.score).toBeCloseTo(1);
  });

  it("keyword only: BM25 relative to the best hit", () => {
    expect(keywordOnly(hits(["a", 8], ["b", 2])).map((c) => c.score)).toEqual([1, 0.25]);
    expect(keywordOnly([])).toEqual([]);
  });

  it("vector only: cosine, floored at 0", () => {
    expect(vectorOnly(hits(["a", 0.8], ["b", -0.1])).map((c) => c.score)).toEqual([0.8, 0]);
  });

  it("orders by score, then path, then start line", () => {
    const c = (id: string, path: string, line: number, score: number) => ({
      chunk: chunk(id, path, line),
      score,
      scores: {},
    });
    const sorted = [
      c("1", "b.md", 1, 0.5),
      c("2", "a.md", 9, 0.5),
      c("3", "a.md", 2, 0.5),
      c("4", "z.md", 1, 0.9),
    ].sort(compareCandidates);
    expect(sorted.map((x) => x.chunk.id)).toEqual(["4", "3", "2", "1"]);
  });
});
