import { describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

/**
 * LanceDB filters are SQL text with values inlined, so every user string that reaches a `where`
 * clause must come back exactly, whatever it holds.
 */
const NASTY = [
  "it's",
  "a''b",
  "back\\slash\\",
  "semi;colon -- comment",
  'quote"double',
  "日记 #1",
  "tab\there",
  "new\nline",
];

describe("strings with SQL meaning are taken literally", () => {
  it.each(NASTY)("in paths, sources and path prefixes: %j", async (odd) => {
    const store = await temp.open();
    const path = `notes/${odd}/x.md`;
    const target = upsert(path, [[1, ["needle"]]], { source: odd });
    await store.write({ upserts: [target, upsert("notes/plain.md", [[1, ["needle"]]])] });
    expect(await store.getFile(path)).toEqual(target.file);
    expect(await store.listFiles({ source: odd })).toEqual([target.file]);
    expect((await store.getChunks(path)).map((c) => c.id)).toEqual([`${path}:1`]);
    const under = await store.searchText(["needle"], 10, { pathPrefix: `notes/${odd}` });
    expect(under.map((hit) => hit.chunk.path)).toEqual([path]);
    const bySource = await store.searchText(["needle"], 10, { sources: [odd] });
    expect(bySource.map((hit) => hit.chunk.path)).toEqual([path]);
    await store.write({ deletes: [path] });
    expect(await store.getFile(path)).toBeUndefined();
    expect(await store.searchText(["needle"], 10)).toHaveLength(1);
  });

  it("in meta keys and key-value keys", async () => {
    const store = await temp.open();
    for (const [i, odd] of NASTY.entries()) {
      await store.setMeta(odd, `v${i}`);
      await store.keyValue.set([[odd, Uint8Array.from([i])]]);
    }
    for (const [i, odd] of NASTY.entries()) {
      expect(await store.getMeta(odd)).toBe(`v${i}`);
      expect(Array.from((await store.keyValue.get([odd])).get(odd) ?? [])).toEqual([i]);
    }
    expect(await store.getMeta("it")).toBeUndefined();
    expect(await store.keyValue.count("")).toBe(NASTY.length);
  });
});

describe("terms reach the full-text index exactly as written", () => {
  it("long terms are kept whole (LanceDB drops tokens over 40 characters by default)", async () => {
    const store = await temp.open();
    const long = "a".repeat(64) + "9".repeat(100);
    await store.write({
      upserts: [upsert("a.md", [[1, [long, "short"]]]), upsert("b.md", [[1, ["short"]]])],
    });
    expect((await store.searchText([long], 5)).map((hit) => hit.chunk.path)).toEqual(["a.md"]);
    expect(await store.searchText([long.slice(0, 40)], 5)).toEqual([]);
  });

  it("query words of a query language are plain terms", async () => {
    const store = await temp.open();
    await store.write({
      upserts: [
        upsert("a.md", [[1, ["and", "or", "not"]]]),
        upsert("b.md", [[1, ["near", "phrase"]]]),
        upsert("c.md", [[1, ["Mixed", "CASE"]]]),
      ],
    });
    expect((await store.searchText(["not"], 5)).map((hit) => hit.chunk.path)).toEqual(["a.md"]);
    expect((await store.searchText(["near"], 5)).map((hit) => hit.chunk.path)).toEqual(["b.md"]);
    // No lower-casing or folding beyond what core's analyzer did.
    expect((await store.searchText(["Mixed"], 5)).map((hit) => hit.chunk.path)).toEqual(["c.md"]);
    expect(await store.searchText(["mixed"], 5)).toEqual([]);
  });
});
