import { storeUpsert } from "@engram/core/testing";
import { describe, expect, it } from "vitest";
import {
  chunksOfPaths,
  EMBEDDED_CHUNKS,
  recordsOfKind,
  searchFilter,
  staleChunks,
} from "../src/filter.js";
import { chunkPointId, pathPrefixKeys, prefixKey } from "../src/ids.js";
import { keysUnder } from "../src/key-value.js";

/** Whether a chunk at `path` passes a `pathPrefix` filter, as Qdrant decides it (one key match). */
const underPrefix = (path: string, prefix: string) =>
  pathPrefixKeys(path).includes(prefixKey(prefix));

describe("path prefix keys", () => {
  it("match exactly the string prefixes of the path", () => {
    const path = "memory/mid-term/projects/x/status.md";
    for (let i = 1; i <= path.length; i++) expect(underPrefix(path, path.slice(0, i))).toBe(true);
    expect(underPrefix(path, "memory/mid-term/projects/y")).toBe(false);
    expect(underPrefix(path, `${path}x`)).toBe(false);
    expect(underPrefix(path, "emory/")).toBe(false);
  });

  it("are literal: no wildcards, case-sensitive (the conformance cases)", () => {
    const paths = [
      "notes/a_b.md",
      "notes/axb.md",
      "notes/100%/x.md",
      "notes/1000/x.md",
      "Notes/a_b.md",
    ];
    const under = (prefix: string) => paths.filter((path) => underPrefix(path, prefix));
    expect(under("notes/a_")).toEqual(["notes/a_b.md"]);
    expect(under("notes/100%")).toEqual(["notes/100%/x.md"]);
    expect(under("notes/")).toEqual(paths.slice(0, 4));
    expect(under("Notes/")).toEqual(["Notes/a_b.md"]);
    expect(under("MEMORY")).toEqual([]);
  });

  it("work for Chinese, emoji and absolute paths", () => {
    expect(underPrefix("记忆/长期/决定.md", "记忆/长")).toBe(true);
    expect(underPrefix("记忆/长期/决定.md", "记忆/短")).toBe(false);
    // A prefix ending inside a surrogate pair still matches, as String#startsWith does.
    const emoji = "notes/🚀launch.md";
    const half = emoji.slice(0, 7);
    expect(emoji.startsWith(half)).toBe(true);
    expect(underPrefix(emoji, half)).toBe(true);
    expect(underPrefix("/home/me/extra/notes.md", "/home/me/")).toBe(true);
  });

  it("are safe integers, one per distinct prefix, growing linearly with the path", () => {
    const path = `/very/long/${"segment/".repeat(30)}file.md`;
    const keys = pathPrefixKeys(path);
    expect(keys).toHaveLength(path.length);
    expect(keys.every((key) => Number.isSafeInteger(key) && key >= 0)).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("do not collide across the prefixes of many paths", () => {
    const keys = new Map<number, string>();
    const collisions: string[] = [];
    let lengthsMatch = true;
    for (let i = 0; i < 2000; i++) {
      const path = `memory/long-term/topic-${i % 37}/note-${i}.md`;
      const pathKeys = pathPrefixKeys(path);
      lengthsMatch &&= pathKeys.length === path.length;
      pathKeys.forEach((key, j) => {
        const prefix = path.slice(0, j + 1);
        const seen = keys.get(key);
        if (seen !== undefined && seen !== prefix) collisions.push(`${seen} / ${prefix}`);
        keys.set(key, prefix);
      });
    }
    expect(collisions).toEqual([]);
    expect(lengthsMatch).toBe(true);
    expect(keys.size).toBeGreaterThan(10_000);
  });
});

describe("searchFilter", () => {
  it("does not restrict without fields or with an empty prefix", () => {
    expect(searchFilter(undefined)).toBeUndefined();
    expect(searchFilter({})).toBeUndefined();
    expect(searchFilter({ pathPrefix: "" })).toBeUndefined();
  });

  it("builds one must condition per field, on the indexed payload keys", () => {
    expect(
      searchFilter({ tiers: ["short", "mid"], sources: ["memory"], pathPrefix: "memory/" }),
    ).toEqual({
      must: [
        { key: "tier", match: { any: ["short", "mid"] } },
        { key: "source", match: { value: "memory" } },
        { key: "path_prefixes", match: { value: prefixKey("memory/") } },
      ],
    });
  });

  it("serialises to plain JSON (what the client sends)", () => {
    const filter = searchFilter({ tiers: ["long"], pathPrefix: "记忆/" });
    expect(JSON.parse(JSON.stringify(filter))).toEqual(filter);
  });
});

describe("other filters", () => {
  it("select chunks of paths, and the stale chunks of re-written files", () => {
    expect(chunksOfPaths(["a.md"])).toEqual({ must: [{ key: "path", match: { value: "a.md" } }] });
    expect(chunksOfPaths(["a.md", "b.md"])).toEqual({
      must: [{ key: "path", match: { any: ["a.md", "b.md"] } }],
    });
  });

  it("select records by kind and source, and embedded chunks", () => {
    expect(recordsOfKind("file", "sessions")).toEqual({
      must: [
        { key: "kind", match: { value: "file" } },
        { key: "source", match: { value: "sessions" } },
      ],
    });
    expect(recordsOfKind("cache")).toEqual({ must: [{ key: "kind", match: { value: "cache" } }] });
    expect(EMBEDDED_CHUNKS).toEqual({ must: [{ key: "embedded", match: { value: true } }] });
  });

  it("select key-value entries under a folder prefix by the indexed key folders", () => {
    expect(keysUnder("")).toEqual({ must: [{ key: "kind", match: { value: "kv" } }] });
    expect(keysUnder("embedding/3/")).toEqual({
      must: [
        { key: "kind", match: { value: "kv" } },
        { key: "key_folders", match: { value: "embedding/3/" } },
      ],
    });
  });
});

describe("staleChunks", () => {
  const chunked = (path: string, n: number) =>
    storeUpsert(
      path,
      Array.from({ length: n }, (_, i): [number, string[]] => [i + 1, ["t"]]),
    );
  const ids = (...upserts: ReturnType<typeof chunked>[]) =>
    upserts.flatMap((u) => u.chunks.map((c) => chunkPointId(c.id)));

  it("keeps the new points of re-written files and drops the rest of their chunks", () => {
    const a = chunked("a.md", 2);
    expect(staleChunks([a], 1000)).toEqual([
      { must: [{ key: "path", match: { value: "a.md" } }], must_not: [{ has_id: ids(a) }] },
    ]);
    // A file re-written without chunks loses all of them.
    expect(staleChunks([chunked("empty.md", 0)], 5)).toEqual([
      { must: [{ key: "path", match: { value: "empty.md" } }] },
    ]);
    expect(staleChunks([], 5)).toEqual([]);
  });

  it("groups files so no request keeps more than maxIds ids", () => {
    const [a, b, c, d] = [
      chunked("a.md", 3),
      chunked("b.md", 2),
      chunked("c.md", 4),
      chunked("d.md", 0),
    ];
    const filters = staleChunks([a, b, c, d], 5);
    expect(filters.map((f) => f.must)).toEqual([
      [{ key: "path", match: { any: ["a.md", "b.md"] } }],
      [{ key: "path", match: { any: ["c.md", "d.md"] } }],
    ]);
    expect(filters[0]?.must_not).toEqual([{ has_id: ids(a, b) }]);
  });

  it("gives a file larger than maxIds a filter of its own", () => {
    const filters = staleChunks([chunked("a.md", 1), chunked("big.md", 7), chunked("c.md", 1)], 5);
    expect(filters.map((f) => f.must)).toEqual([
      [{ key: "path", match: { value: "a.md" } }],
      [{ key: "path", match: { value: "big.md" } }],
      [{ key: "path", match: { value: "c.md" } }],
    ]);
  });
});
