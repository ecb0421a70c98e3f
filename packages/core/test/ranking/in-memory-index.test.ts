import { describe, expect, it } from "vitest";
import { bm25Idf, bm25Term, rareTerms } from "../../src/ranking/bm25.js";
import { type IndexedChunk, InMemoryIndex } from "../../src/ranking/in-memory-index.js";
import { cosineSimilarity } from "../../src/ranking/quantize.js";
import { javascriptKernel, vectorKernel } from "../../src/ranking/vector-kernel.js";
import { termFrequencyWeight } from "../../src/text/character-terms.js";

function chunk(
  path: string,
  terms: string[],
  options: { startLine?: number; tier?: string; embedding?: number[] } = {},
): IndexedChunk {
  const startLine = options.startLine ?? 1;
  return {
    id: `${path}:${startLine}`,
    path,
    tier: options.tier ?? "long",
    source: "memory",
    startLine,
    endLine: startLine,
    terms,
    embedding: options.embedding ? Float32Array.from(options.embedding) : null,
  };
}

/** BM25 computed the slow, obvious way from its definition in `bm25.ts`. */
function directScores(docs: IndexedChunk[], query: string[]): Map<string, number> {
  const withTerms = docs.filter((doc) => doc.terms.length > 0);
  const n = withTerms.length;
  const avg = withTerms.reduce((sum, doc) => sum + doc.terms.length, 0) / n;
  const scores = new Map<string, number>();
  for (const doc of withTerms) {
    let score = 0;
    for (const term of new Set(query)) {
      const count = doc.terms.filter((t) => t === term).length;
      if (!count) continue;
      const df = withTerms.filter((d) => d.terms.includes(term)).length;
      score += bm25Term(bm25Idf(n, df), count * termFrequencyWeight(term), doc.terms.length, avg);
    }
    if (score > 0) scores.set(doc.path, score);
  }
  return scores;
}

const paths = (hits: ReadonlyArray<{ chunk: { path: string } }>) => hits.map((h) => h.chunk.path);

describe("InMemoryIndex keyword search", () => {
  const docs = [
    chunk("a.md", ["deploy", "pipeline", "deploy", "failed"]),
    chunk("b.md", ["deploy", "uses", "github", "actions", "and", "more", "words", "here"]),
    chunk("c.md", ["用", "户", "用户", "偏", "好", "偏好"]),
    chunk("d.md", ["pipeline"]),
    chunk("e.md", ["filler", "text"]),
    chunk("f.md", ["户", "户", "户", "口"]),
    chunk("g.md", ["unrelated", "words"]),
    chunk("h.md", ["more", "filler"]),
  ];

  it("scores exactly BM25 as bm25.ts defines it, for English and Chinese terms", () => {
    const index = new InMemoryIndex({ kernel: javascriptKernel });
    index.add(docs);
    const query = ["deploy", "pipeline", "用户", "absent", "户"];
    const hits = index.searchText(query, 10);
    const direct = directScores(docs, query);
    expect(paths(hits).sort()).toEqual([...direct.keys()].sort());
    for (const hit of hits) expect(hit.score).toBeCloseTo(direct.get(hit.chunk.path) as number, 12);
  });

  it("counts a single Han character by presence, a bigram by frequency", () => {
    const pad = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
    const index = new InMemoryIndex({ kernel: javascriptKernel });
    index.add([
      chunk("once.md", ["忆", ...pad(9, "a")]),
      chunk("often.md", ["忆", "忆", "忆", "忆", "忆", ...pad(5, "b")]),
      chunk("bigram-once.md", ["记忆", ...pad(9, "d")]),
      chunk("bigram-often.md", ["记忆", "记忆", "记忆", "记忆", "记忆", ...pad(5, "e")]),
      ...Array.from({ length: 10 }, (_, i) => chunk(`other${i}.md`, pad(10, `o${i}x`))),
    ]);
    const score = (term: string, path: string) =>
      index.searchText([term], 10).find((hit) => hit.chunk.path === path)?.score as number;
    expect(score("忆", "often.md") / score("忆", "once.md")).toBeCloseTo(1, 2);
    expect(score("记忆", "bigram-often.md") / score("记忆", "bigram-once.md")).toBeGreaterThan(1.3);
  });

  it("takes terms as given: no case folding, no prototype keys", () => {
    const index = new InMemoryIndex({ kernel: javascriptKernel });
    index.add([
      chunk("phrase.md", ["hello world", "c++"]),
      chunk("proto.md", ["__proto__", "constructor"]),
      chunk("case.md", ["Running"]),
      chunk("pad1.md", ["x"]),
      chunk("pad2.md", ["y"]),
    ]);
    expect(paths(index.searchText(["hello world"], 10))).toEqual(["phrase.md"]);
    expect(paths(index.searchText(["__proto__"], 10))).toEqual(["proto.md"]);
    expect(paths(index.searchText(["toString", "hasOwnProperty"], 10))).toEqual([]);
    expect(paths(index.searchText(["running"], 10))).toEqual([]);
  });

  it("orders equal scores by path, then start line, and cuts ties at k in that order", () => {
    const index = new InMemoryIndex({ kernel: javascriptKernel });
    index.add([
      chunk("z.md", ["same"], { startLine: 1 }),
      chunk("a.md", ["same"], { startLine: 9 }),
      chunk("m.md", ["same"], { startLine: 1 }),
      chunk("p1.md", ["other"]),
      chunk("p2.md", ["other"]),
      chunk("p3.md", ["other"]),
      chunk("p4.md", ["other"]),
    ]);
    index.removePaths(["m.md"]);
    index.add([
      chunk("m.md", ["same"], { startLine: 2 }),
      chunk("a2.md", ["same"], { startLine: 3 }),
    ]);
    expect(paths(index.searchText(["same"], 10))).toEqual(["a.md", "a2.md", "m.md", "z.md"]);
    expect(paths(index.searchText(["same"], 2))).toEqual(["a.md", "a2.md"]);
  });

  it("ranks with the rare terms first, and with common ones when that finds fewer than k", () => {
    const index = new InMemoryIndex({ kernel: javascriptKernel });
    index.add([
      chunk("rare.md", ["rare", "common"]),
      chunk("c1.md", ["common"]),
      chunk("c2.md", ["common"]),
      chunk("x.md", ["x"]),
    ]);
    const df = (term: string) => index.docFreq(term);
    expect(rareTerms(["rare", "common"], df, 4)).toEqual(["rare"]);
    expect(paths(index.searchText(["rare", "common"], 1))).toEqual(["rare.md"]);
    expect(paths(index.searchText(["rare", "common"], 3)).sort()).toEqual([
      "c1.md",
      "c2.md",
      "rare.md",
    ]);
  });

  it("filters by tier and path prefix, and forgets removed paths (also after compaction)", () => {
    const index = new InMemoryIndex({ kernel: javascriptKernel });
    index.add([
      chunk("memory/a.md", ["word"], { tier: "short" }),
      chunk("notes/b.md", ["word"], { tier: "long" }),
    ]);
    expect(paths(index.searchText(["word"], 10, { tiers: ["short"] }))).toEqual(["memory/a.md"]);
    expect(paths(index.searchText(["word"], 10, { pathPrefix: "notes/" }))).toEqual(["notes/b.md"]);
    const many = Array.from({ length: 6000 }, (_, i) => chunk(`bulk/${i}.md`, ["bulk", `t${i}`]));
    index.add(many);
    index.removePaths(many.map((c) => c.path));
    expect(index.size).toBe(2);
    expect(index.searchText(["bulk"], 10)).toEqual([]);
    expect(paths(index.searchText(["word"], 10))).toEqual(["memory/a.md", "notes/b.md"]);
  });
});

describe("InMemoryIndex vector search", () => {
  /** A deterministic PRNG, so a failure reproduces. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a * 1103515245 + 12345) % 2 ** 31;
      return a / 2 ** 31 - 0.5;
    };
  }

  const kernels = [
    ["JavaScript", javascriptKernel],
    ["the default (USearch when installed)", vectorKernel()],
  ] as const;

  for (const [name, kernel] of kernels) {
    it(`finds the exact cosine top k with the ${name} kernel`, async () => {
      const next = random(7);
      const dims = 24;
      const docs = Array.from({ length: 500 }, (_, i) =>
        chunk(`v/${String(i).padStart(3, "0")}.md`, [], {
          embedding: Array.from({ length: dims }, next),
        }),
      );
      const index = new InMemoryIndex({ kernel });
      index.add(docs);
      const query = Float32Array.from({ length: dims }, next);
      const expected = docs
        .map((doc) => ({
          path: doc.path,
          score: cosineSimilarity(query, doc.embedding as Float32Array),
        }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      const hits = await index.searchVector(query, 10);
      expect(paths(hits)).toEqual(expected.map((e) => e.path));
      for (const [i, hit] of hits.entries()) {
        expect(hit.score).toBeCloseTo(expected[i]?.score as number, 6);
      }
      const filtered = await index.searchVector(query, 5, { pathPrefix: "v/1" });
      expect(filtered.every((hit) => hit.chunk.path.startsWith("v/1"))).toBe(true);
      expect(filtered).toHaveLength(5);
    });
  }

  it("refuses a vector of other dimensions and finds nothing without vectors", async () => {
    const index = new InMemoryIndex({ kernel: javascriptKernel });
    expect(await index.searchVector(Float32Array.from([1, 0]), 3)).toEqual([]);
    index.add([chunk("a.md", ["a"], { embedding: [1, 0, 0] })]);
    expect(() => index.add([chunk("b.md", ["b"], { embedding: [1, 0] })])).toThrow(/2-dimensional/);
    await expect(index.searchVector(Float32Array.from([1, 0]), 3)).rejects.toThrow(/2-dimensional/);
    expect(paths(await index.searchVector(Float32Array.from([0, 1, 0]), 3))).toEqual(["a.md"]);
  });
});
