import { describe, expect, it, type TestContext } from "vitest";
import type { KeyValueStore } from "../driver/index.js";
import { EmbeddingCache } from "../embedding/cache.js";
import { type Harness, requireCapability } from "./conformance-fixtures.js";

async function keyValueOf(h: Harness, context: TestContext, name: string): Promise<KeyValueStore> {
  const store = await h.store();
  requireCapability(context, store, "keyValue", name);
  if (!store.keyValue)
    throw new Error("capabilities.keyValue is true but store.keyValue is missing");
  return store.keyValue;
}

const bytes = (...values: number[]) => Uint8Array.from(values);
const plain = (map: Map<string, Uint8Array>) =>
  Object.fromEntries([...map].map(([key, value]) => [key, Array.from(value)]));

/** The key → bytes map core keeps its embedding cache in. */
export function keyValueSection(name: string, h: Harness): void {
  describe("key-value map", () => {
    it("gets nothing for unknown keys", async (context) => {
      const kv = await keyValueOf(h, context, name);
      expect((await kv.get(["nope"])).size).toBe(0);
      expect((await kv.get([])).size).toBe(0);
      expect(await kv.count("")).toBe(0);
    });

    it("sets, gets and replaces values exactly (any bytes, any key characters)", async (context) => {
      const kv = await keyValueOf(h, context, name);
      const odd = "embedding/0/openai:text-embedding-3-small:1536:é中 ' \" %_\\";
      await kv.set([
        [odd, bytes(0, 255, 1, 128)],
        ["b", bytes()],
        ["c", bytes(7)],
      ]);
      expect(await kv.count("")).toBe(3);
      const found = await kv.get([odd, "missing", "b"]);
      for (const value of found.values()) expect(value).toBeInstanceOf(Uint8Array);
      expect(plain(found)).toEqual({ [odd]: [0, 255, 1, 128], b: [] });
      await kv.set([["b", bytes(9, 9)]]);
      expect(plain(await kv.get(["b"]))).toEqual({ b: [9, 9] });
      expect(await kv.count("")).toBe(3);
    });

    it("counts and deletes by prefix, literally (no wildcards)", async (context) => {
      const kv = await keyValueOf(h, context, name);
      await kv.set(
        ["a/1", "a/2", "a%/3", "a_4", "ab/5", "b/6"].map((key) => [key, bytes(1)] as const),
      );
      expect(await kv.count("a/")).toBe(2);
      expect(await kv.count("a%")).toBe(1);
      expect(await kv.count("a_")).toBe(1);
      expect(await kv.count("a")).toBe(5);
      expect(await kv.deletePrefix("a/")).toBe(2);
      expect(await kv.deletePrefix("a/")).toBe(0);
      expect([...(await kv.get(["a/1", "a%/3", "a_4", "ab/5", "b/6"])).keys()].sort()).toEqual([
        "a%/3",
        "a_4",
        "ab/5",
        "b/6",
      ]);
      expect(await kv.deletePrefix("")).toBe(4);
      expect(await kv.count("")).toBe(0);
    });

    it("counts and deletes by prefixes ending in any character (Chinese, U+10FFFF, emoji)", async (context) => {
      const kv = await keyValueOf(h, context, name);
      const top = String.fromCodePoint(0x10ffff);
      const keys = [
        "记忆/1",
        "记忆/2",
        "记忆力",
        "记",
        "x😀1",
        "x😀2",
        "x😁",
        `y${top}1`,
        `y${top}`,
        "z",
      ];
      await kv.set(keys.map((key) => [key, bytes(1)] as const));
      expect(await kv.count("记忆/")).toBe(2);
      expect(await kv.count("记忆")).toBe(3);
      expect(await kv.count("记")).toBe(4);
      expect(await kv.count("x😀")).toBe(2);
      expect(await kv.count(`y${top}`)).toBe(2);
      expect(await kv.deletePrefix(`y${top}`)).toBe(2);
      expect(await kv.deletePrefix("记忆")).toBe(3);
      expect([...(await kv.get(keys)).keys()].sort()).toEqual(
        ["x😀1", "x😀2", "x😁", "z", "记"].sort(),
      );
    });

    it("holds core's embedding cache (vectors round-trip exactly)", async (context) => {
      const cache = new EmbeddingCache(await keyValueOf(h, context, name));
      const vector = Float32Array.from([0.1, -0.2, 3e-8, Number.MAX_VALUE / 1e300]);
      await cache.set([["openai:small:4:abc", vector]]);
      expect(
        Array.from((await cache.get(["openai:small:4:abc"])).get("openai:small:4:abc") ?? []),
      ).toEqual(Array.from(vector));
      expect(await cache.size()).toBe(1);
    });
  });
}
