import { EngramError } from "@engram/core/driver";
import { storeUpsert } from "@engram/core/testing";
import { describe, expect, it } from "vitest";
import { chunkPointId, prefixKey, recordPointId, uuidFor } from "../src/ids.js";
import { DEFAULT_BM25 } from "../src/options.js";
import {
  cacheEntryOf,
  chunkPoint,
  filePoint,
  fileRecordOf,
  keyFolders,
  keyValueEntryOf,
  keyValuePoint,
  metaPoint,
  metaValueOf,
  storedChunkOf,
} from "../src/points.js";
import { documentVector } from "../src/sparse.js";

/** What the point looks like after the trip through JSON to the server and back. */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("point ids", () => {
  it("are deterministic version-5 UUIDs", () => {
    expect(chunkPointId("abc")).toMatch(UUID);
    expect(chunkPointId("abc")).toBe(chunkPointId("abc"));
    expect(chunkPointId("abc")).not.toBe(chunkPointId("abd"));
    expect(uuidFor("")).toMatch(UUID);
  });

  it("never change: existing collections are addressed by them", () => {
    // Pinned from the hand-written RFC 9562 v5 code these ids were first made with.
    expect(uuidFor("")).toBe("685899d6-59fd-5a63-a97f-b5c1eab346b3");
    expect(chunkPointId("abc")).toBe("d5cad20f-edbc-54de-8c24-fb46b31294a8");
    expect(recordPointId("file", "memory/2026-01-02.md")).toBe(
      "d92aaea4-684a-579f-acd9-b762b1ed7846",
    );
    expect(recordPointId("kv", "embedding/0/x")).toBe("9be8378b-2a12-520e-bcdd-c04845dfe30c");
  });

  it("differ between kinds for the same key", () => {
    const ids = new Set([
      chunkPointId("k"),
      recordPointId("file", "k"),
      recordPointId("meta", "k"),
      recordPointId("cache", "k"),
    ]);
    expect(ids.size).toBe(4);
  });
});

describe("chunk points", () => {
  const [first] = storeUpsert("记忆/决定.md", [
    [3, ["用户", "偏好", "用户"], [0.5, -0.25, 1, 0]],
  ]).chunks;
  if (!first) throw new Error("expected a chunk");
  const chunk = {
    ...first,
    headings: ["记忆", "🚀 launch"],
    text: "用户偏好：深色模式\n第二行 🚀",
  };

  it("carry both vectors and a payload that reads back as the stored chunk", () => {
    const point = wire(chunkPoint(chunk, DEFAULT_BM25));
    expect(point.id).toBe(chunkPointId(chunk.id));
    const { terms: _t, embedding: _e, ...stored } = chunk;
    expect(storedChunkOf(point.payload)).toEqual(stored);
    const vector = point.vector as Record<string, unknown>;
    expect(vector.dense).toEqual([0.5, -0.25, 1, 0]);
    expect(vector.bm25).toEqual(documentVector(chunk.terms, DEFAULT_BM25));
    expect(point.payload?.embedded).toBe(true);
    expect(point.payload?.path_prefixes).toContain(prefixKey("记忆/"));
  });

  it("leave out the vectors a chunk does not have", () => {
    const plain = { ...chunk, embedding: null, terms: [] };
    const point = chunkPoint(plain, DEFAULT_BM25);
    expect(point.vector).toEqual({});
    expect(point.payload?.embedded).toBe(false);
  });

  it("refuse a payload written by something else, naming the fix", () => {
    expect(() => storedChunkOf({ path: "a.md" })).toThrow(EngramError);
    expect(() => storedChunkOf(null)).toThrow(/not written by this engram store/);
  });
});

describe("record points", () => {
  it("round-trip file records, without vectors", () => {
    const file = {
      path: "sessions/对话.jsonl",
      source: "sessions",
      tier: "short" as const,
      hash: "ab".repeat(32),
      mtimeMs: 1_767_225_600_123,
      size: 4096,
    };
    const point = wire(filePoint(file));
    expect(point.vector).toEqual({});
    expect(point.id).toBe(recordPointId("file", file.path));
    expect(fileRecordOf(point.payload)).toEqual(file);
  });

  it("round-trip meta values exactly", () => {
    const value = "值 — “quoted” 🚀\n second line";
    expect(metaValueOf(wire(metaPoint("键", value)).payload)).toBe(value);
    expect(metaValueOf(wire(metaPoint("empty", "")).payload)).toBe("");
  });

  it("round-trip key-value bytes exactly through JSON, with the key's folders indexed", () => {
    const value = Uint8Array.from([0, 255, 1, 128, 10]);
    const point = wire(keyValuePoint("embedding/3/openai:small:3:中文", value));
    expect(point.id).toBe(recordPointId("kv", "embedding/3/openai:small:3:中文"));
    expect(point.payload?.key_folders).toEqual(["embedding/", "embedding/3/"]);
    const entry = keyValueEntryOf(point.payload);
    expect(entry.key).toBe("embedding/3/openai:small:3:中文");
    expect(entry.value).toBeInstanceOf(Uint8Array);
    expect(Array.from(entry.value)).toEqual([0, 255, 1, 128, 10]);
    expect(
      Array.from(keyValueEntryOf(wire(keyValuePoint("e", new Uint8Array())).payload).value),
    ).toEqual([]);
    expect(keyFolders("no-slash")).toEqual([]);
  });

  it("read layout 1's cached vectors, to move them", () => {
    const payload = {
      kind: "cache",
      key: "openai:small:3:abc",
      vector: [0.5, -1, 3],
      last_used: 7,
    };
    const [key, vector] = cacheEntryOf(wire({ id: 1, vector: {}, payload }).payload);
    expect(key).toBe("openai:small:3:abc");
    expect(Array.from(vector)).toEqual([0.5, -1, 3]);
    expect(() => cacheEntryOf({ kind: "cache", key: "k", vector: "x" })).toThrow(/vector/);
  });
});
