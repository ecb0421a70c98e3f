import { describe, expect, it } from "vitest";
import {
  expectEngramError,
  fileWithChunks,
  type Harness,
  requireCapability,
  stored,
} from "./conformance-fixtures.js";

/** `reset`: what it drops, what survives, and the vector space it prepares. */
export function resetSection(name: string, h: Harness): void {
  describe("reset", () => {
    it("drops files and chunks but keeps meta", async () => {
      const store = await h.store();
      await store.setMeta("engram.identity", "old");
      await store.write({
        upserts: [
          fileWithChunks("a.md", [[1, ["alpha"]]]),
          fileWithChunks("b.md", [[1, ["beta"]]]),
        ],
      });
      await store.reset({ dims: null });
      expect(await store.stats()).toMatchObject({ files: 0, chunks: 0, vectors: 0 });
      expect(await store.listFiles()).toEqual([]);
      expect(await store.getChunks("a.md")).toEqual([]);
      expect(await store.searchText(["alpha", "beta"], 10)).toEqual([]);
      expect(await store.getMeta("engram.identity")).toBe("old");
      expect(await store.dims()).toBeNull();

      const again = fileWithChunks("a.md", [[1, ["alpha"]]]);
      await store.write({ upserts: [again] });
      expect(await store.getChunks("a.md")).toEqual(again.chunks.map(stored));
      expect(await store.searchText(["alpha"], 10)).toHaveLength(1);
    });

    it("prepares the vector space and switches dimensions", async (context) => {
      const store = await h.store();
      requireCapability(context, store, "vector", name);
      await store.reset({ dims: 4 });
      expect(await store.dims()).toBe(4);
      await store.write({
        upserts: [fileWithChunks("four.md", [[1, ["four"], { embedding: [1, 0, 0, 0] }]])],
      });
      expect(await store.stats()).toMatchObject({ chunks: 1, vectors: 1 });

      await store.reset({ dims: 8 });
      expect(await store.dims()).toBe(8);
      expect(await store.stats()).toMatchObject({ files: 0, chunks: 0, vectors: 0 });
      const eight = fileWithChunks("eight.md", [
        [1, ["eight"], { embedding: [0, 0, 0, 0, 0, 0, 0, 1] }],
        [5, ["eight"], { embedding: [1, 0, 0, 0, 0, 0, 0, 0] }],
      ]);
      await store.write({ upserts: [eight] });
      const hits = await store.searchVector(Float32Array.from([0, 0, 0, 0, 0, 0, 0, 2]), 5);
      expect(hits.map((hit) => hit.chunk.startLine)).toEqual([1, 5]);
      await expectEngramError(
        store.searchVector(Float32Array.from([1, 0, 0, 0]), 5),
        "STORE_DIMS_MISMATCH",
      );
      await expectEngramError(
        store.write({
          upserts: [fileWithChunks("x.md", [[1, ["x"], { embedding: [1, 0, 0, 0] }]])],
        }),
        "STORE_DIMS_MISMATCH",
      );

      await store.reset({ dims: null });
      expect(await store.dims()).toBeNull();
      expect(await store.searchVector(Float32Array.from([1, 0, 0, 0]), 5)).toEqual([]);
    });

    it("reset to the same dimensions empties the vector space", async (context) => {
      const store = await h.store();
      requireCapability(context, store, "vector", name);
      await store.reset({ dims: 4 });
      await store.write({
        upserts: [fileWithChunks("a.md", [[1, ["a"], { embedding: [1, 0, 0, 0] }]])],
      });
      await store.reset({ dims: 4 });
      expect(await store.searchVector(Float32Array.from([1, 0, 0, 0]), 5)).toEqual([]);
      expect(await store.stats()).toMatchObject({ vectors: 0 });
    });

    it("keeps the embedding cache", async (context) => {
      const store = await h.store();
      requireCapability(context, store, "embeddingCache", name);
      await store.cache?.set([["key", Float32Array.from([0.5, 0.25])]]);
      await store.reset({ dims: null });
      expect(await store.cache?.size()).toBe(1);
      expect(Array.from((await store.cache?.get(["key"]))?.get("key") ?? [])).toEqual([0.5, 0.25]);
    });

    it("resetVectors (optional) drops the vectors and keeps files, chunks and keyword search", async (context) => {
      const store = await h.store();
      requireCapability(context, store, "vector", name);
      if (!store.resetVectors) context.skip(`${name} has no resetVectors (core resets instead)`);
      await store.reset({ dims: 4 });
      const file = fileWithChunks("a.md", [
        [1, ["alpha"], { embedding: [1, 0, 0, 0] }],
        [5, ["beta"], { embedding: [0, 1, 0, 0] }],
      ]);
      await store.write({ upserts: [file] });
      await store.resetVectors?.({ dims: 8 });
      expect(await store.dims()).toBe(8);
      expect(await store.stats()).toMatchObject({ files: 1, chunks: 2, vectors: 0 });
      expect(await store.getChunks("a.md")).toEqual(file.chunks.map(stored));
      expect((await store.searchText(["alpha"], 10)).map((h) => h.chunk.startLine)).toEqual([1]);
      expect(await store.searchVector(new Float32Array(8).fill(1), 5)).toEqual([]);
      const eight = fileWithChunks("a.md", [
        [1, ["alpha"], { embedding: [0, 0, 0, 0, 0, 0, 0, 1] }],
        [5, ["beta"], { embedding: [1, 0, 0, 0, 0, 0, 0, 0] }],
      ]);
      await store.write({ upserts: [eight] });
      const hits = await store.searchVector(Float32Array.from([0, 0, 0, 0, 0, 0, 0, 2]), 5);
      expect(hits.map((hit) => hit.chunk.startLine)).toEqual([1, 5]);
      await store.resetVectors?.({ dims: null });
      expect(await store.dims()).toBeNull();
      expect(await store.stats()).toMatchObject({ files: 1, chunks: 2, vectors: 0 });
      expect(await store.searchText(["beta"], 10)).toHaveLength(1);
    });
  });
}
