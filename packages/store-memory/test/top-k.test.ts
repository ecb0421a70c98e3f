import type { StoredChunk } from "@engram/core";
import { describe, expect, it } from "vitest";
import type { ChunkEntry } from "../src/chunk-entry.js";
import { compareScored, type Scored, TopK } from "../src/top-k.js";

function entry(seq: number, path: string, startLine: number): ChunkEntry {
  const chunk: StoredChunk = {
    id: `id-${seq}`,
    path,
    source: "memory",
    tier: "long",
    startLine,
    endLine: startLine,
    headings: [],
    text: "",
    hash: "",
  };
  return { seq, chunk, terms: [], vector: null, norm: 0 };
}

/** A deterministic PRNG, so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a * 1103515245 + 12345) % 2 ** 31;
    return a / 2 ** 31;
  };
}

describe("TopK", () => {
  it("keeps exactly what sorting everything and cutting would keep, ties included", () => {
    const rand = random(7);
    for (let round = 0; round < 50; round++) {
      const n = Math.floor(rand() * 60);
      // Few distinct scores, paths and lines: most hits tie on the score, many on the path too.
      const hits: Scored[] = Array.from({ length: n }, (_, i) => ({
        entry: entry(i, `p${Math.floor(rand() * 4)}.md`, 1 + Math.floor(rand() * 5)),
        score: Math.floor(rand() * 4) / 2,
      }));
      const sorted = [...hits].sort(compareScored);
      for (const limit of [0, 1, 2, 5, n, n + 3]) {
        const top = new TopK(limit);
        for (const hit of hits) top.offer(hit.entry, hit.score);
        expect(top.results()).toEqual(sorted.slice(0, limit));
      }
    }
  });

  it("orders equal scores by path, then start line", () => {
    const top = new TopK(10);
    top.offer(entry(1, "b.md", 1), 1);
    top.offer(entry(2, "a.md", 9), 1);
    top.offer(entry(3, "a.md", 2), 1);
    top.offer(entry(4, "z.md", 1), 2);
    expect(
      top.results().map((hit) => `${hit.entry.chunk.path}:${hit.entry.chunk.startLine}`),
    ).toEqual(["z.md:1", "a.md:2", "a.md:9", "b.md:1"]);
  });
});
