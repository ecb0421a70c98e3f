import { describe, expect, it, type TestContext } from "vitest";
import type { MemoryStore } from "../driver/index.js";
import {
  at,
  expectDescending,
  expectEngramError,
  fileWithChunks,
  type Harness,
  locations,
  requireCapability,
  stored,
} from "./conformance-fixtures.js";

const q = (...values: number[]) => Float32Array.from(values);

/** Hand-made 4-d vectors whose cosine similarities to [1, 0, 0, 0] are known. */
function corpus() {
  return {
    a: fileWithChunks("vec/a.md", [[1, ["a"], { embedding: [1, 0, 0, 0] }]]), // 1
    b: fileWithChunks("vec/b.md", [[1, ["b"], { embedding: [1, 1, 0, 0] }]], { tier: "short" }), // √½
    c: fileWithChunks("vec/c.md", [[1, ["c"], { embedding: [0, 1, 0, 0] }]], {
      tier: "mid",
      source: "sessions",
    }), // 0
    d: fileWithChunks("vec/d.md", [[1, ["d"], { embedding: [-1, 0, 0, 0] }]], { tier: "archive" }), // -1
    e: fileWithChunks("other/e.md", [[1, ["e"], { embedding: [3, 0, 4, 0] }]]), // 0.6
    none: fileWithChunks("vec/none.md", [[1, ["none"], { embedding: null }]]),
  };
}

async function seeded(
  h: Harness,
  context: TestContext,
  name: string,
): Promise<{ store: MemoryStore; c: ReturnType<typeof corpus> }> {
  const store = await h.store();
  requireCapability(context, store, "vector", name);
  await store.reset({ dims: 4 });
  const c = corpus();
  await store.write({ upserts: Object.values(c) });
  return { store, c };
}

/** `searchVector`: cosine KNN over small hand-made vectors. */
export function vectorSearchSection(name: string, h: Harness): void {
  describe("searchVector", () => {
    it("finds the exact match first and scores by cosine similarity", async (context) => {
      const { store, c } = await seeded(h, context, name);
      const hits = await store.searchVector(q(1, 0, 0, 0), 10);
      expect(locations(hits)).toEqual([
        "vec/a.md:1",
        "vec/b.md:1",
        "other/e.md:1",
        "vec/c.md:1",
        "vec/d.md:1",
      ]);
      const scores = hits.map((hit) => hit.score);
      expect(scores[0]).toBeCloseTo(1, 5);
      expect(scores[1]).toBeCloseTo(Math.SQRT1_2, 5);
      expect(scores[2]).toBeCloseTo(0.6, 5);
      expect(scores[3]).toBeCloseTo(0, 5);
      expect(scores[4]).toBeCloseTo(-1, 5);
      expect(at(hits, 0).chunk).toEqual(stored(at(c.a.chunks, 0)));
      expectDescending(hits);
    });

    it("ignores the query's length (cosine, not distance)", async (context) => {
      const { store } = await seeded(h, context, name);
      const unit = await store.searchVector(q(0, 1, 0, 0), 10);
      const long = await store.searchVector(q(0, 40, 0, 0), 10);
      expect(locations(long)).toEqual(locations(unit));
      long.forEach((hit, i) => {
        expect(hit.score).toBeCloseTo(at(unit, i).score, 5);
      });
      expect(at(unit, 0).score).toBeCloseTo(1, 5);
      expect(locations(unit)[0]).toBe("vec/c.md:1");
    });

    it("never returns chunks without a vector", async (context) => {
      const { store } = await seeded(h, context, name);
      const hits = await store.searchVector(q(0, 0, 0, 1), 100);
      expect(hits).toHaveLength(5);
      expect(locations(hits)).not.toContain("vec/none.md:1");
      expect(await store.stats()).toMatchObject({ files: 6, chunks: 6, vectors: 5 });
    });

    it("k bounds the hits; k < 1 gives none", async (context) => {
      const { store } = await seeded(h, context, name);
      expect(locations(await store.searchVector(q(1, 0, 0, 0), 2))).toEqual([
        "vec/a.md:1",
        "vec/b.md:1",
      ]);
      expect(await store.searchVector(q(1, 0, 0, 0), 0)).toEqual([]);
      expect(await store.searchVector(q(1, 0, 0, 0), -1)).toEqual([]);
    });

    it("filters by tier and source while searching, still returning k hits", async (context) => {
      const { store } = await seeded(h, context, name);
      const active = await store.searchVector(q(1, 0, 0, 0), 10, { tiers: ["short", "mid"] });
      expect(locations(active)).toEqual(["vec/b.md:1", "vec/c.md:1"]);
      const archive = await store.searchVector(q(1, 0, 0, 0), 1, { tiers: ["archive"] });
      expect(locations(archive)).toEqual(["vec/d.md:1"]);
      const sessions = await store.searchVector(q(1, 0, 0, 0), 10, { sources: ["sessions"] });
      expect(locations(sessions)).toEqual(["vec/c.md:1"]);
      expect(await store.searchVector(q(1, 0, 0, 0), 10, { sources: ["elsewhere"] })).toEqual([]);
      expect(await store.searchVector(q(1, 0, 0, 0), 10, { tiers: [] })).toEqual([]);
    });

    it("finds nothing near a zero vector (it has no direction)", async (context) => {
      const { store } = await seeded(h, context, name);
      expect(await store.searchVector(q(0, 0, 0, 0), 10)).toEqual([]);
    });

    it("filters by path prefix", async (context) => {
      const { store } = await seeded(h, context, name);
      const other = await store.searchVector(q(1, 0, 0, 0), 1, { pathPrefix: "other/" });
      expect(locations(other)).toEqual(["other/e.md:1"]);
      expect(at(other, 0).score).toBeCloseTo(0.6, 5);
      const vec = await store.searchVector(q(1, 0, 0, 0), 10, {
        pathPrefix: "vec/",
        tiers: ["long", "mid"],
      });
      expect(locations(vec)).toEqual(["vec/a.md:1", "vec/c.md:1"]);
      expect(await store.searchVector(q(1, 0, 0, 0), 10, { pathPrefix: "VEC/" })).toEqual([]);
    });

    it("orders equal scores by path, then start line", async (context) => {
      const store = await h.store();
      requireCapability(context, store, "vector", name);
      await store.reset({ dims: 4 });
      const same = { embedding: [0, 0, 1, 0] };
      // 20 equally near chunks (written first to last path, lines out of order) and one farther away.
      const tied = Array.from({ length: 10 }, (_, i) =>
        fileWithChunks(`tie/f${String(i).padStart(2, "0")}.md`, [
          [7, ["t"], same],
          [3, ["t"], same],
        ]),
      );
      const far = fileWithChunks("tie/a-far.md", [[1, ["t"], { embedding: [1, 0, 0, 0] }]]);
      await store.write({ upserts: [...tied, far] });
      const expected = Array.from({ length: 10 }, (_, i) => [
        `tie/f${String(i).padStart(2, "0")}.md:3`,
        `tie/f${String(i).padStart(2, "0")}.md:7`,
      ]).flat();
      expect(locations(await store.searchVector(q(0, 0, 1, 0), 30))).toEqual([
        ...expected,
        "tie/a-far.md:1",
      ]);
      expect(locations(await store.searchVector(q(0, 0, 1, 0), 2))).toEqual(expected.slice(0, 2));
      expect(locations(await store.searchVector(q(0, 0, 1, 0), 5))).toEqual(expected.slice(0, 5));
      expect(locations(await store.searchVector(q(0, 0, 1, 0), 3, { pathPrefix: "tie/" }))).toEqual(
        expected.slice(0, 3),
      );
      expect(locations(await store.searchVector(q(0, 0, 1, 0), 3, { tiers: ["long"] }))).toEqual(
        expected.slice(0, 3),
      );
    });

    it("refuses a query of other dimensions", async (context) => {
      const { store } = await seeded(h, context, name);
      await expectEngramError(store.searchVector(q(1, 0, 0), 5), "STORE_DIMS_MISMATCH");
      await expectEngramError(
        store.searchVector(q(1, 0, 0, 0, 0, 0, 0, 0), 5),
        "STORE_DIMS_MISMATCH",
      );
    });

    it("gives no hits without a vector space", async (context) => {
      const store = await h.store();
      requireCapability(context, store, "vector", name);
      expect(await store.searchVector(q(1, 0, 0, 0), 5)).toEqual([]);
      await store.reset({ dims: null });
      await store.write({ upserts: [fileWithChunks("a.md", [[1, ["a"]]])] });
      expect(await store.searchVector(q(1, 0, 0, 0), 5)).toEqual([]);
      expect(await store.searchVector(q(1, 0, 0), 5)).toEqual([]);
    });

    it("refuses a batch with a vector of other dimensions, applying none of it", async (context) => {
      const { store } = await seeded(h, context, name);
      const good = fileWithChunks("new/good.md", [[1, ["good"], { embedding: [0, 0, 0, 1] }]]);
      const bad = fileWithChunks("new/bad.md", [[1, ["bad"], { embedding: [0, 0, 1] }]]);
      await expectEngramError(
        store.write({ deletes: ["vec/a.md"], upserts: [good, bad] }),
        "STORE_DIMS_MISMATCH",
      );
      if (!store.capabilities.atomicWrites) return;
      expect(await store.getFile("vec/a.md")).toBeDefined();
      expect(await store.getFile("new/good.md")).toBeUndefined();
      expect(await store.getFile("new/bad.md")).toBeUndefined();
      expect(await store.stats()).toMatchObject({ files: 6, chunks: 6, vectors: 5 });
      expect(locations(await store.searchVector(q(1, 0, 0, 0), 1))).toEqual(["vec/a.md:1"]);
    });

    it("replacing and deleting files replaces and deletes their vectors", async (context) => {
      const { store } = await seeded(h, context, name);
      const plain = fileWithChunks("vec/a.md", [[1, ["a"], { embedding: null }]]);
      const moved = fileWithChunks("vec/b.md", [[2, ["b"], { embedding: [0, 0, 0, 1] }]], {
        tier: "short",
      });
      await store.write({ upserts: [plain, moved], deletes: ["vec/d.md"] });
      expect(await store.stats()).toMatchObject({ files: 5, chunks: 5, vectors: 3 });
      const hits = await store.searchVector(q(1, 0, 0, 0), 10);
      expect(locations(hits)).toEqual(["other/e.md:1", "vec/b.md:2", "vec/c.md:1"]);
      expect(locations(await store.searchVector(q(0, 0, 0, 1), 1))).toEqual(["vec/b.md:2"]);
    });
  });
}
