import { describe, expect, it } from "vitest";
import type { MemoryStore } from "../../src/driver/contract.js";
import type { ChunkRecord, StoreBatch, StoreHit } from "../../src/driver/records.js";
import type { IndexedChunk } from "../../src/ranking/in-memory-index.js";
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

/** A {@link partialStore} that asks for its chunks to be kept, counting the ids it reads. */
function slowReads() {
  const { store } = partialStore();
  const reads = { chunks: 0, vectors: 0 };
  const getChunksById = store.getChunksById?.bind(store);
  Object.assign(store, {
    memoryIndexKeepsChunks: true,
    getChunksById: async (ids: readonly string[]) => {
      reads.chunks += ids.length;
      return (await getChunksById?.(ids)) ?? [];
    },
    getVectors: async (ids: readonly string[]) => {
      reads.vectors += ids.length;
      return new Map<string, Float32Array>();
    },
  });
  return { store, reads };
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

  it("keeps the chunks and vectors it scanned for a store whose reads by id are slow, and follows writes", async () => {
    const { store, reads } = slowReads();
    await store.write({
      upserts: [
        storeUpsert("a.md", [
          [1, ["alpha"], [1, 0]],
          [2, ["alpha", "beta"], [0, 1]],
        ]),
      ],
    });
    const front = withMemoryIndex(store);
    const found = async (hits: Promise<StoreHit[]>) =>
      (await hits).map((hit) => `${hit.chunk.id} ${hit.chunk.text}`);
    expect(await found(front.searchText(["beta"], 5))).toEqual(["a.md:2 alpha beta"]);
    expect(await found(front.searchVector(Float32Array.from([1, 0.1]), 1))).toEqual([
      "a.md:1 alpha",
    ]);
    // This process's write replaces a.md's chunks in memory too.
    await front.write({ upserts: [storeUpsert("a.md", [[1, ["gamma"], [1, 1]]])] });
    expect(await found(front.searchText(["alpha", "gamma"], 5))).toEqual(["a.md:1 gamma"]);
    expect(await found(front.searchVector(Float32Array.from([1, 0.9]), 5))).toEqual([
      "a.md:1 gamma",
    ]);
    expect(front.indexLoaded).toBe(true);
    expect(reads).toEqual({ chunks: 0, vectors: 0 });
  });

  it("reads from the store the kept chunks a scan did not give whole", async () => {
    const { store, reads } = slowReads();
    await store.write({
      upserts: [
        storeUpsert("a.md", [
          [1, ["alpha"]],
          [2, ["alpha"]],
        ]),
      ],
    });
    const scan = store.scanChunks?.bind(store) as () => AsyncIterable<IndexedChunk[]>;
    Object.assign(store, {
      // The second chunk comes without its text.
      async *scanChunks() {
        for await (const page of scan()) {
          yield page.map((chunk) => {
            if (chunk.id !== "a.md:2") return chunk;
            const { text: _text, ...rest } = chunk as IndexedChunk & { text: string };
            return rest;
          });
        }
      },
    });
    const front = withMemoryIndex(store);
    const hits = await front.searchText(["alpha"], 5);
    expect(hits.map((hit) => `${hit.chunk.id} ${hit.chunk.text}`)).toEqual([
      "a.md:1 alpha",
      "a.md:2 alpha",
    ]);
    expect(reads.chunks).toBe(1); // a.md:2 alone
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
