import { describe, expect, it, type TestContext } from "vitest";
import type { EmbeddingCacheStore } from "../store/index.js";
import { type Harness, requireCapability } from "./conformance-fixtures.js";

async function cacheOf(
  h: Harness,
  context: TestContext,
  name: string,
): Promise<EmbeddingCacheStore> {
  const store = await h.store();
  requireCapability(context, store, "embeddingCache", name);
  if (!store.cache)
    throw new Error("capabilities.embeddingCache is true but store.cache is missing");
  return store.cache;
}

const plain = (map: Map<string, Float32Array>) =>
  Object.fromEntries([...map].map(([key, vector]) => [key, Array.from(vector)]));

/** The embedding cache: a bounded key → vector map with LRU pruning. */
export function embeddingCacheSection(name: string, h: Harness): void {
  describe("embedding cache", () => {
    it("gets nothing for unknown keys", async (context) => {
      const cache = await cacheOf(h, context, name);
      expect((await cache.get(["nope"])).size).toBe(0);
      expect((await cache.get([])).size).toBe(0);
      expect(await cache.size()).toBe(0);
    });

    it("sets, gets and replaces vectors exactly", async (context) => {
      const cache = await cacheOf(h, context, name);
      await cache.set([
        ["openai:small:3:abc", Float32Array.from([0.1, -0.2, 0.3])],
        ["local:m:5:def", Float32Array.from([1, 2, 3, 4, 5])],
      ]);
      expect(await cache.size()).toBe(2);
      const found = await cache.get(["openai:small:3:abc", "missing", "local:m:5:def"]);
      expect([...found.keys()].sort()).toEqual(["local:m:5:def", "openai:small:3:abc"]);
      for (const vector of found.values()) expect(vector).toBeInstanceOf(Float32Array);
      expect(plain(found)).toEqual({
        "openai:small:3:abc": Array.from(Float32Array.from([0.1, -0.2, 0.3])),
        "local:m:5:def": [1, 2, 3, 4, 5],
      });

      await cache.set([["local:m:5:def", Float32Array.from([5, 4, 3, 2, 1])]]);
      expect(await cache.size()).toBe(2);
      expect(plain(await cache.get(["local:m:5:def"]))).toEqual({
        "local:m:5:def": [5, 4, 3, 2, 1],
      });
    });

    it("prune keeps the most recently used entries", async (context) => {
      const cache = await cacheOf(h, context, name);
      for (const key of ["k1", "k2", "k3", "k4"])
        await cache.set([[key, Float32Array.from([1, 2])]]);
      await cache.get(["k1"]); // k1 becomes the most recently used; k2 and k3 are now the oldest
      expect(await cache.prune(2)).toBe(2);
      expect(await cache.size()).toBe(2);
      expect([...(await cache.get(["k1", "k2", "k3", "k4"])).keys()].sort()).toEqual(["k1", "k4"]);
      expect(await cache.prune(5)).toBe(0);
      expect(await cache.size()).toBe(2);
      expect(await cache.prune(0)).toBe(2);
      expect(await cache.size()).toBe(0);
    });

    it("setting a key again makes it recently used", async (context) => {
      const cache = await cacheOf(h, context, name);
      for (const key of ["k1", "k2", "k3"]) await cache.set([[key, Float32Array.from([1])]]);
      await cache.set([["k1", Float32Array.from([2])]]);
      expect(await cache.prune(1)).toBe(2);
      expect(plain(await cache.get(["k1", "k2", "k3"]))).toEqual({ k1: [2] });
    });

    it("clear removes every entry", async (context) => {
      const cache = await cacheOf(h, context, name);
      await cache.set(
        Array.from({ length: 50 }, (_, i) => [`key${i}`, Float32Array.from([i])] as const),
      );
      expect(await cache.size()).toBe(50);
      await cache.clear();
      expect(await cache.size()).toBe(0);
      expect((await cache.get(["key1"])).size).toBe(0);
    });
  });
}
