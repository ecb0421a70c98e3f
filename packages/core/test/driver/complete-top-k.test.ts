import { describe, expect, it } from "vitest";
import { compareHits, completeTopK } from "../../src/driver/chunk-order.js";
import type { StoreHit } from "../../src/driver/records.js";

/** The best `k` hits in the contract's order, as `defineStore` asks a driver without complete ties. */
const topK = (k: number, fetch: (limit: number) => Promise<StoreHit[]>) =>
  completeTopK(k, fetch, compareHits);

const hit = (path: string, startLine: number, score: number): StoreHit => ({
  chunk: {
    id: `${path}:${startLine}`,
    path,
    source: "memory",
    tier: "long",
    startLine,
    endLine: startLine,
    headings: [],
    text: "",
    hash: "",
  },
  score,
});

/**
 * A source like Qdrant's or LanceDB's top-k: the best `limit` hits, but which members of a tie at the cut-off
 * make it is arbitrary (here: the last-written ones, the worst case for the contract's order).
 */
function source(all: StoreHit[]) {
  const limits: number[] = [];
  const fetch = async (limit: number) => {
    limits.push(limit);
    const sorted = [...all].reverse().sort((a, b) => b.score - a.score);
    return sorted.slice(0, limit);
  };
  return { fetch, limits };
}

const where = (hits: StoreHit[]) => hits.map((h) => `${h.chunk.path}:${h.chunk.startLine}`);

describe("completeTopK", () => {
  it("orders by score, then path and start line", async () => {
    const { fetch, limits } = source([
      hit("b.md", 1, 0.5),
      hit("a.md", 9, 0.5),
      hit("a.md", 2, 0.5),
      hit("z.md", 1, 0.9),
    ]);
    expect(where(await topK(10, fetch))).toEqual(["z.md:1", "a.md:2", "a.md:9", "b.md:1"]);
    expect(limits).toEqual([11]);
  });

  it("completes a tie at the cut-off before choosing, doubling the fetch", async () => {
    const tied = Array.from({ length: 20 }, (_, i) =>
      hit(`tie/f${String(i).padStart(2, "0")}.md`, 3, 1),
    );
    const { fetch, limits } = source([...tied, hit("tie/a-far.md", 1, 0.5)]);
    expect(where(await topK(2, fetch))).toEqual(["tie/f00.md:3", "tie/f01.md:3"]);
    expect(limits).toEqual([3, 6, 12, 24]);
  });

  it("stops as soon as the k-th score differs from the last fetched", async () => {
    const { fetch, limits } = source([
      hit("a.md", 1, 3),
      hit("b.md", 1, 2),
      hit("c.md", 1, 1),
      hit("d.md", 1, 1),
    ]);
    expect(where(await topK(2, fetch))).toEqual(["a.md:1", "b.md:1"]);
    expect(limits).toEqual([3]);
  });

  it("returns every hit when k exceeds them", async () => {
    const { fetch, limits } = source([hit("a.md", 1, 1), hit("b.md", 1, 1)]);
    expect(where(await topK(1000, fetch))).toEqual(["a.md:1", "b.md:1"]);
    expect(limits).toEqual([1001]);
  });
});
