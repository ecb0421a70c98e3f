import { createAnalyzer } from "@engram/core/internal";
import { describe, expect, it } from "vitest";
import { DEFAULT_BM25 } from "../src/options.js";
import { documentVector, queryVector, type SparseVector, termIndex } from "../src/sparse.js";

/** Sparse dot product, as Qdrant scores a query against a chunk (before IDF). */
function dot(query: SparseVector, doc: SparseVector, idf: (index: number) => number = () => 1) {
  const weights = new Map(doc.indices.map((index, i) => [index, doc.values[i] as number]));
  return query.indices.reduce((sum, index) => sum + (weights.get(index) ?? 0) * idf(index), 0);
}

describe("termIndex", () => {
  it("is the reference MurmurHash3_x86_32 (seed 0) of the term's UTF-8 bytes", () => {
    expect(termIndex("")).toBe(0);
    expect(termIndex("hello")).toBe(0x248bfa47);
    expect(termIndex("The quick brown fox jumps over the lazy dog")).toBe(0x2e4ff723);
    // Tails of 1, 2 and 3 bytes.
    expect(termIndex("a")).toBe(0x3c2569b2);
    expect(termIndex("ab")).toBe(0x9bbfd75f);
    expect(termIndex("abc")).toBe(0xb3dd93fa);
  });

  it("hashes UTF-8 bytes, so CJK and emoji terms get stable indices", () => {
    // Pinned: the hand-written hash the first collections were written with gave these, so
    // their sparse indices still match (checked equal on 620,000 random mixed-script strings).
    expect(termIndex("用户")).toBe(0xdb73a310);
    expect(termIndex("偏好")).toBe(0x8c6dcac8);
    expect(termIndex("記憶")).toBe(0x1d20bc66);
    expect(termIndex("🚀")).toBe(0x7f675865);
    expect(termIndex("café")).toBe(0x241c0f08);
  });
});

describe("documentVector", () => {
  it("weights each distinct term by the BM25 term-frequency part", () => {
    const terms = ["deploy", "pipeline", "deploy", "failed"];
    const vector = documentVector(terms, { k1: 1.2, b: 0.75, avgTerms: 8 });
    if (!vector) throw new Error("expected a vector");
    const norm = 1.2 * (1 - 0.75 + (0.75 * 4) / 8);
    const weight = (tf: number) => (tf * 2.2) / (tf + norm);
    const byTerm = Object.fromEntries(
      vector.indices.map((index, i) => [index, vector.values[i] as number]),
    );
    expect(byTerm[termIndex("deploy")]).toBeCloseTo(weight(2), 12);
    expect(byTerm[termIndex("pipeline")]).toBeCloseTo(weight(1), 12);
    expect(byTerm[termIndex("failed")]).toBeCloseTo(weight(1), 12);
    expect(vector.indices).toHaveLength(3);
  });

  it("counts a single Han or kana character by presence, in a chunk of any length", () => {
    const params = { k1: 1.2, b: 0.75, avgTerms: 8 };
    const weightOf = (terms: string[], term: string) => {
      const vector = documentVector(terms, params);
      return vector?.values[vector.indices.indexOf(termIndex(term))] ?? 0;
    };
    const pad = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`);
    const once = weightOf(["忆", ...pad(7)], "忆");
    expect(once).toBeGreaterThan(0.99 * 2.2);
    expect(weightOf(["忆", "忆", "忆", ...pad(5)], "忆")).toBeCloseTo(once, 2);
    expect(weightOf(["忆", ...pad(79)], "忆")).toBeGreaterThan(0.99 * 2.2);
    // A bigram keeps BM25's frequency and length normalisation.
    const bigram = weightOf(["记忆", ...pad(7)], "记忆");
    expect(weightOf(["记忆", "记忆", "记忆", ...pad(5)], "记忆")).toBeGreaterThan(1.3 * bigram);
    expect(weightOf(["记忆", ...pad(79)], "记忆")).toBeLessThan(0.5 * bigram);
  });

  it("gives sorted, unique indices with positive weights", () => {
    const vector = documentVector(["b", "a", "c", "a", "b", "a"], DEFAULT_BM25);
    if (!vector) throw new Error("expected a vector");
    expect(vector.indices).toEqual([...new Set(vector.indices)].sort((x, y) => x - y));
    expect(vector.values.every((v) => v > 0)).toBe(true);
    expect(vector.values).toHaveLength(vector.indices.length);
  });

  it("is null for a chunk without terms", () => {
    expect(documentVector([], DEFAULT_BM25)).toBeNull();
    expect(documentVector([""], DEFAULT_BM25)).toBeNull();
  });

  it("weights a term less in a longer chunk, and saturates repeats", () => {
    const short = documentVector(["x", "y"], DEFAULT_BM25);
    const long = documentVector(
      ["x", ...Array.from({ length: 500 }, (_, i) => `w${i}`)],
      DEFAULT_BM25,
    );
    const x = termIndex("x");
    const weight = (v: SparseVector | null) => v?.values[v.indices.indexOf(x)] ?? 0;
    expect(weight(short)).toBeGreaterThan(weight(long));
    const once = weight(documentVector(["x"], { ...DEFAULT_BM25, b: 0 }));
    const many = weight(documentVector(Array(100).fill("x"), { ...DEFAULT_BM25, b: 0 }));
    expect(many).toBeGreaterThan(once);
    expect(many).toBeLessThan(DEFAULT_BM25.k1 + 1);
  });

  it("with b = 0 ignores the chunk length entirely", () => {
    const params = { ...DEFAULT_BM25, b: 0 };
    const x = termIndex("x");
    const a = documentVector(["x", "y"], params);
    const b = documentVector(["x", ...Array(300).fill("z")], params);
    expect(a?.values[a.indices.indexOf(x)]).toBe(b?.values[b.indices.indexOf(x)]);
  });

  it("indexes core's analysed Chinese terms as given (unigrams and bigrams)", () => {
    const terms = createAnalyzer().terms("用户偏好深色模式");
    expect(terms).toContain("用户");
    const vector = documentVector(terms, DEFAULT_BM25);
    expect(vector?.indices).toContain(termIndex("用户"));
    expect(vector?.indices).toContain(termIndex("户"));
    expect(vector?.indices).not.toContain(termIndex("用户偏好"));
  });
});

describe("queryVector", () => {
  it("gives weight 1 to each distinct term, so repeats change nothing", () => {
    const once = queryVector(["deploy", "zebra"]);
    expect(queryVector(["zebra", "deploy", "deploy", "zebra"])).toEqual(once);
    expect(once?.values).toEqual([1, 1]);
    expect(once?.indices).toEqual([termIndex("deploy"), termIndex("zebra")].sort((a, b) => a - b));
  });

  it("is null without terms", () => {
    expect(queryVector([])).toBeNull();
    expect(queryVector(["", ""])).toBeNull();
  });

  it("query · chunk with Qdrant's IDF is the chunk's BM25 score (avgdl = avgTerms)", () => {
    // A small corpus scored twice: by a textbook BM25, and as Qdrant does with these vectors.
    const docs = [
      ["deploy", "pipeline", "failed", "again"],
      ["lunch", "with", "the", "team", "deploy"],
      ["zebra", "crossing", "near", "office", "zebra", "zebra"],
      ["用户", "偏好", "深色", "模式"],
    ];
    const params = { k1: 1.2, b: 0.75, avgTerms: 4.5 };
    const n = docs.length;
    const df = (term: string) => docs.filter((d) => d.includes(term)).length;
    const idf = (term: string) => Math.log(1 + (n - df(term) + 0.5) / (df(term) + 0.5));
    const textbook = (doc: string[], query: string[]) =>
      [...new Set(query)].reduce((sum, term) => {
        const tf = doc.filter((t) => t === term).length;
        if (tf === 0) return sum;
        const norm = params.k1 * (1 - params.b + (params.b * doc.length) / params.avgTerms);
        return sum + idf(term) * ((tf * (params.k1 + 1)) / (tf + norm));
      }, 0);
    const termOf = new Map(docs.flat().map((term) => [termIndex(term), term]));
    for (const query of [["deploy"], ["zebra", "deploy"], ["偏好", "office", "missing"]]) {
      const q = queryVector(query);
      if (!q) throw new Error("expected a query vector");
      for (const doc of docs) {
        const d = documentVector(doc, params);
        if (!d) throw new Error("expected a document vector");
        const qdrant = dot(q, d, (index) => idf(termOf.get(index) ?? ""));
        expect(qdrant).toBeCloseTo(textbook(doc, query), 12);
      }
    }
  });
});
