import { describe, expect, it } from "vitest";
import type { MemoryStore } from "../../src/driver/contract.js";
import type { ChunkRecord, StoreBatch } from "../../src/driver/records.js";
import { withMemoryIndex } from "../../src/ranking/with-memory-index.js";
import type { SearchOptions } from "../../src/search/types.js";
import { warmUp } from "../../src/search/warm-up.js";
import { storeUpsert } from "../../src/testing/store-upsert.js";

/**
 * A store whose writes are not atomic, as LanceDB's: a write applies its chunks, then may fail
 * before the generation moves (`failNext`). Its own searches find nothing, so a hit comes from
 * the copy in front of it.
 */
function partialStore() {
  const chunks = new Map<string, ChunkRecord>();
  let generation = 0;
  const state = { failNext: false, scans: 0 };
  const store = {
    kind: "partial",
    capabilities: {
      vector: false,
      fulltext: true,
      keyValue: false,
      persistent: false,
      atomicWrites: false,
    },
    init: async () => {},
    stats: async () => ({ files: 0, chunks: chunks.size, vectors: 0 }),
    async write(batch: StoreBatch) {
      for (const { file, chunks: written } of batch.upserts ?? []) {
        for (const [id, chunk] of chunks) if (chunk.path === file.path) chunks.delete(id);
        for (const chunk of written) chunks.set(chunk.id, chunk);
      }
      if (state.failNext) {
        state.failNext = false;
        throw new Error("the disk filled up before the generation was written");
      }
      generation++;
    },
    searchText: async () => [],
    generation: async () => generation,
    async *scanChunks() {
      state.scans++;
      yield [...chunks.values()];
    },
    getChunksById: async (ids: readonly string[]) =>
      ids.flatMap((id) => {
        const chunk = chunks.get(id);
        if (!chunk) return [];
        const { terms: _terms, embedding: _embedding, ...stored } = chunk;
        return [stored];
      }),
    getVectors: async () => new Map<string, Float32Array>(),
    listFiles: async () => [
      ...new Map(
        [...chunks.values()].map((c) => [c.path, { path: c.path, tier: c.tier }]),
      ).values(),
    ],
    getChunks: async (path: string) => [...chunks.values()].filter((c) => c.path === path),
    close: async () => {},
  };
  return { store: store as unknown as MemoryStore, state };
}

describe("withMemoryIndex", () => {
  it("drops the copy when a write fails: the store may have kept part of it", async () => {
    const { store, state } = partialStore();
    const front = withMemoryIndex(store);
    await front.write({ upserts: [storeUpsert("a.md", [[1, ["alpha"]]])] });
    expect((await front.searchText(["alpha"], 5)).map((hit) => hit.chunk.path)).toEqual(["a.md"]);
    expect(front.indexLoaded).toBe(true);
    state.failNext = true;
    await expect(front.write({ upserts: [storeUpsert("b.md", [[1, ["beta"]]])] })).rejects.toThrow(
      /disk filled up/,
    );
    expect(front.indexLoaded).toBe(false);
    // Loaded again, with what the failed write left (the generation never moved).
    expect((await front.searchText(["beta"], 5)).map((hit) => hit.chunk.path)).toEqual(["b.md"]);
    expect(front.indexLoaded).toBe(true);
  });

  it("searches that start together share one load, waited for or in the background", async () => {
    for (const backgroundAbove of [2000, 0]) {
      const { store, state } = partialStore();
      await store.write({ upserts: [storeUpsert("a.md", [[1, ["alpha"]]])] });
      const front = withMemoryIndex(store, { backgroundAbove });
      const both = await Promise.all([
        front.searchText(["alpha"], 5),
        front.searchText(["alpha"], 5),
      ]);
      await front.indexReady();
      expect(state.scans).toBe(1);
      // Waited for, both answer from the copy; in the background, the store (which finds nothing).
      expect(both.map((hits) => hits.length)).toEqual(backgroundAbove ? [1, 1] : [0, 0]);
      expect(front.indexLoaded).toBe(true);
    }
  });

  it("copies no index over the store's memoryIndexMaxChunks: the store answers, unscanned", async () => {
    const { store, state } = partialStore();
    await store.write({ upserts: [storeUpsert("a.md", [[1, ["alpha"]]])] });
    await store.write({ upserts: [storeUpsert("b.md", [[1, ["alpha"]]])] });
    const limited = Object.assign(store, { memoryIndexMaxChunks: 1 });
    const front = withMemoryIndex(limited);
    for (let i = 0; i < 3; i++) {
      // The store itself finds nothing: no hit can come from a copy.
      expect(await front.searchText(["alpha"], 5)).toEqual([]);
      await front.indexReady();
    }
    expect(front.indexLoaded).toBe(false);
    expect(state.scans).toBe(0);

    // Within the limit, the copy loads as before.
    const { store: small, state: smallState } = partialStore();
    await small.write({ upserts: [storeUpsert("a.md", [[1, ["alpha"]]])] });
    const fronted = withMemoryIndex(Object.assign(small, { memoryIndexMaxChunks: 1 }));
    expect((await fronted.searchText(["alpha"], 5)).map((hit) => hit.chunk.path)).toEqual(["a.md"]);
    expect(smallState.scans).toBe(1);
  });

  it("loadIndex loads the copy before any search (once), and a store it cannot copy says false", async () => {
    const { store, state } = partialStore();
    await store.write({ upserts: [storeUpsert("a.md", [[1, ["alpha"]]])] });
    const front = withMemoryIndex(store, { backgroundAbove: 0 });
    expect(await front.loadIndex()).toBe(true);
    expect(front.indexLoaded).toBe(true);
    // The first search answers from the copy (the store itself finds nothing), without a new scan.
    expect((await front.searchText(["alpha"], 5)).map((hit) => hit.chunk.path)).toEqual(["a.md"]);
    expect(await front.loadIndex()).toBe(true);
    expect(state.scans).toBe(1);

    const bare = withMemoryIndex({ ...store, generation: undefined } as unknown as MemoryStore);
    expect(await bare.loadIndex()).toBe(false);
  });
});

describe("warmUp", () => {
  it("loads the index, then searches once for a stored chunk's words: keyword, unrecorded, not reranked", async () => {
    const { store, state } = partialStore();
    await store.write({
      upserts: [
        storeUpsert("memory/archive/old.md", [[1, ["old"]]], { tier: "archive" }),
        storeUpsert("MEMORY.md", [[1, ["alpha"]]]),
      ],
    });
    const front = withMemoryIndex(store, { backgroundAbove: 0 });
    const searches: Array<[string, SearchOptions | undefined]> = [];
    const report = await warmUp({
      store: front,
      search: async (query, options) => {
        searches.push([query, options]);
        return { results: [] } as never;
      },
    });
    expect(report).toMatchObject({ indexLoaded: true, searched: true });
    expect(report.ms).toBeGreaterThan(0);
    expect(state.scans).toBe(1);
    // The text of MEMORY.md's chunk (the archive is not searched by default).
    expect(searches).toEqual([
      [expect.stringContaining("alpha"), { mode: "keyword", rerank: false, recordRecall: false }],
    ]);
  });

  it("is best effort: a store that fails leaves a report, not an error", async () => {
    const failing = {
      listFiles: async () => {
        throw new Error("closed");
      },
      getChunks: async () => [],
    };
    const report = await warmUp({ store: failing, search: async () => ({}) as never });
    expect(report).toMatchObject({ indexLoaded: false, searched: false });
  });
});
