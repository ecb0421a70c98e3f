import { describe, expect, it } from "vitest";
import {
  compareCandidates,
  fuseRrf,
  fuseWeighted,
  keywordOnly,
  normalizeWeights,
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

  it("weighted: vector cosine × wv + 1/(1+rank) × wt, merged by chunk id", () => {
    const out = fuseWeighted(hits(["a", 0.9], ["b", 0.5]), hits(["b", 12], ["c", 3]), {
      vector: 0.7,
      text: 0.3,
    });
    const byId = Object.fromEntries(out.map((c) => [c.chunk.id, c]));
    expect(byId.a?.score).toBeCloseTo(0.63);
    expect(byId.b?.score).toBeCloseTo(0.35 + 0.3);
    expect(byId.c?.score).toBeCloseTo(0.15);
    expect(byId.b?.scores).toEqual({ vector: 0.5, text: 12 });
  });

  it("weighted: negative cosine contributes nothing", () => {
    const [only] = fuseWeighted(hits(["a", -0.4]), [], { vector: 0.7, text: 0.3 });
    expect(only?.score).toBe(0);
    expect(only?.scores.vector).toBe(-0.4);
  });

  it("rrf: first in both lists scores 1; one list alone scores in proportion", () => {
    const out = fuseRrf(
      hits(["a", 0.9], ["b", 0.8]),
      hits(["a", 5], ["c", 4]),
      { vector: 0.5, text: 0.5 },
      60,
    );
    const byId = Object.fromEntries(out.map((c) => [c.chunk.id, c.score]));
    expect(byId.a).toBeCloseTo(1);
    expect(byId.b).toBeCloseTo(0.5 * (61 / 62));
    expect(byId.c).toBeCloseTo(0.5 * (61 / 62));
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
