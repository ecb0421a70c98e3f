import { describe, expect, it } from "vitest";
import type { KeyValueStore } from "../../src/driver/contract.js";
import { bytesToVector, EmbeddingCache, vectorToBytes } from "../../src/embedding/cache.js";

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

  it("keeps what was used since the last turn and drops what was not used for two turns", async () => {
    const kv = mapKeyValue();
    const cache = new EmbeddingCache(kv);
    await cache.set([
      ["used", vec(1)],
      ["unused", vec(2)],
    ]);
    expect(await cache.prune(4)).toBe(0); // 2 entries < half of 4: nothing turns
    expect(await cache.prune(2)).toBe(0); // a turn: generation 0 becomes the older one
    await cache.get(["used"]); // copied into the current generation
    await cache.set([["new", vec(3)]]);
    expect(await cache.prune(2)).toBe(2); // the older generation (used, unused) goes
    const found = await cache.get(["used", "unused", "new"]);
    expect([...found.keys()].sort()).toEqual(["new", "used"]);
    // A second instance over the same map sees the same generations.
    expect([...(await new EmbeddingCache(kv).get(["used", "unused"])).keys()]).toEqual(["used"]);
    await expect(cache.prune(-1)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("reads what it lacks from a fallback cache and keeps a copy", async () => {
    const other = new EmbeddingCache(mapKeyValue());
    await other.set([["shared", vec(7, 8)]]);
    const kv = mapKeyValue();
    const cache = new EmbeddingCache(kv, other);
    expect(Array.from((await cache.get(["shared"])).get("shared") ?? [])).toEqual([7, 8]);
    expect(Array.from((await new EmbeddingCache(kv).get(["shared"])).get("shared") ?? [])).toEqual([
      7, 8,
    ]);
  });
});
