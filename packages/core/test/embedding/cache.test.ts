import { describe, expect, it } from "vitest";
import type { KeyValueStore } from "../../src/driver/contract.js";
import {
  bytesToVector,
  EmbeddingCache,
  movedCacheEntry,
  vectorToBytes,
} from "../../src/embedding/cache.js";

/** A plain key → bytes map, the capability stores provide (store-memory's is the same). */
function mapKeyValue(map = new Map<string, Uint8Array>()): KeyValueStore & { map: typeof map } {
  const keys = (prefix: string) => [...map.keys()].filter((key) => key.startsWith(prefix));
  return {
    map,
    async get(wanted) {
      return new Map(
        wanted.flatMap((key) => (map.has(key) ? [[key, map.get(key) as Uint8Array]] : [])),
      );
    },
    async set(entries) {
      for (const [key, value] of entries) map.set(key, value);
    },
    async deletePrefix(prefix) {
      const gone = keys(prefix);
      for (const key of gone) map.delete(key);
      return gone.length;
    },
    async count(prefix) {
      return keys(prefix).length;
    },
  };
}

const vec = (...values: number[]) => Float32Array.from(values);

describe("EmbeddingCache over a key → bytes map", () => {
  it("round-trips vectors as float32 bytes, including from unaligned bytes", () => {
    const vector = vec(1.5, -2, 3.25, 0);
    expect(Array.from(bytesToVector(vectorToBytes(vector)))).toEqual([1.5, -2, 3.25, 0]);
    const unaligned = new Uint8Array(17);
    unaligned.set(vectorToBytes(vector), 1);
    expect(Array.from(bytesToVector(unaligned.subarray(1)))).toEqual([1.5, -2, 3.25, 0]);
  });

  it("finds a vector a store moved out of an older layout with movedCacheEntry", async () => {
    const kv = mapKeyValue();
    await kv.set([movedCacheEntry("openai:small:3:用户", vec(0.5, -1, 2))]);
    const found = await new EmbeddingCache(kv).get(["openai:small:3:用户", "missing"]);
    expect([...found.keys()]).toEqual(["openai:small:3:用户"]);
    expect(Array.from(found.get("openai:small:3:用户") ?? [])).toEqual([0.5, -1, 2]);
  });

  it("finds what was set, with Chinese and odd keys, and leaves other keys of the map alone", async () => {
    const kv = mapKeyValue();
    await kv.set([["other/key", new Uint8Array([1])]]);
    const cache = new EmbeddingCache(kv);
    await cache.set([
      ["用户偏好", vec(1, 2)],
      ["a'b\"c/ d", vec(3)],
    ]);
    const found = await cache.get(["用户偏好", "a'b\"c/ d", "missing", "用户偏好"]);
    expect([...found.keys()].sort()).toEqual(["a'b\"c/ d", "用户偏好"].sort());
    expect(Array.from(found.get("用户偏好") ?? [])).toEqual([1, 2]);
    expect(await cache.size()).toBe(2);
    await cache.clear();
    expect(await cache.size()).toBe(0);
    expect(kv.map.has("other/key")).toBe(true);
  });

  it("keeps what was used in the last half of maxEntries and drops what was not", async () => {
    const kv = mapKeyValue();
    const cache = new EmbeddingCache(kv, { maxEntries: 4 }); // generations of 2
    const keys = async (c: EmbeddingCache, wanted: string[]) =>
      [...(await c.get(wanted)).keys()].sort();
    await cache.set([
      ["used", vec(1)],
      ["unused", vec(2)],
    ]);
    await cache.set([["new", vec(3)]]); // the first generation is full: a second one begins
    expect(await keys(cache, ["used"])).toEqual(["used"]); // used again: copied forward
    await cache.set([["another", vec(4)]]); // a third begins; the first goes, with "unused"
    expect(await keys(cache, ["used", "unused", "new", "another"])).toEqual([
      "another",
      "new",
      "used",
    ]);
    expect(await cache.size()).toBeLessThanOrEqual(4);
    // A second instance over the same map sees the same generations.
    expect(await keys(new EmbeddingCache(kv), ["used", "unused"])).toEqual(["used"]);
  });

  it("never holds more than maxEntries, also when one write brings more", async () => {
    const cache = new EmbeddingCache(mapKeyValue(), { maxEntries: 10 });
    await cache.set(Array.from({ length: 25 }, (_, i) => [`k${i}`, vec(i)] as const));
    expect(await cache.size()).toBeLessThanOrEqual(10);
    // The most recent entries are the ones kept.
    expect((await cache.get(["k24", "k20"])).size).toBe(2);
    expect((await cache.get(["k0"])).size).toBe(0);
  });

  it("prune brings a cache down to a lowered maxEntries, oldest generation first", async () => {
    const kv = mapKeyValue();
    const cache = new EmbeddingCache(kv, { maxEntries: 100 });
    await cache.set(Array.from({ length: 9 }, (_, i) => [`k${i}`, vec(i)] as const));
    expect(await cache.prune(100)).toBe(0);
    expect(await cache.size()).toBe(9);
    expect(await cache.prune(3)).toBe(9); // one generation of 9: it goes whole
    expect(await cache.size()).toBeLessThanOrEqual(3);
    await expect(cache.prune(-1)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(() => new EmbeddingCache(kv, { maxEntries: -1 })).toThrow(/maxEntries/);
  });

  it("reads what it lacks from a fallback cache and keeps a copy", async () => {
    const other = new EmbeddingCache(mapKeyValue());
    await other.set([["shared", vec(7, 8)]]);
    const kv = mapKeyValue();
    const cache = new EmbeddingCache(kv, { fallback: other });
    expect(Array.from((await cache.get(["shared"])).get("shared") ?? [])).toEqual([7, 8]);
    expect(Array.from((await new EmbeddingCache(kv).get(["shared"])).get("shared") ?? [])).toEqual([
      7, 8,
    ]);
  });
});
