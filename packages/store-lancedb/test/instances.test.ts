import { describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

/** Two store instances over one folder stand in for two processes (say, `engram watch` and a server). */
describe("two stores over one folder", () => {
  it("a reader sees the writer's commits on its next read", async () => {
    const uri = await temp.dir();
    const writer = await temp.open({ uri });
    const reader = await temp.open({ uri });
    expect(await reader.searchText(["alpha"], 5)).toEqual([]);
    expect(await reader.getMeta("engram.identity")).toBeUndefined();
    await writer.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    await writer.setMeta("engram.identity", "x");
    expect((await reader.searchText(["alpha"], 5)).map((hit) => hit.chunk.path)).toEqual(["a.md"]);
    expect(await reader.getMeta("engram.identity")).toBe("x");
    await writer.reset({ dims: 4 });
    expect(await reader.dims()).toBe(4);
    expect(await reader.listFiles()).toEqual([]);
  });

  it("a read whose version another store pruned meanwhile runs again on the latest version", async () => {
    const uri = await temp.dir();
    const writer = await temp.open({ uri });
    await writer.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    // A reader that looks for other processes' commits once an hour keeps reading its snapshot.
    const reader = await temp.open({ uri, readConsistencySeconds: 3600 });
    expect(paths(await reader.searchText(["alpha"], 5))).toEqual(["a.md"]);
    await writer.write({ upserts: [upsert("a.md", [[1, ["beta"]]])] });
    await writer.optimize(); // compacts and prunes every superseded version: the snapshot's files
    // Reading the snapshot's data would fail (its files are gone): the store reads the latest.
    expect((await reader.getChunks("a.md")).map((chunk) => chunk.text)).toEqual(["beta"]);
    expect(paths(await reader.searchText(["beta"], 5))).toEqual(["a.md"]);
  });

  it("changes issued together on one store apply in call order", async () => {
    const store = await temp.open();
    await Promise.all([
      store.write({ upserts: [upsert("a.md", [[1, ["first"]]])] }),
      store.write({ upserts: [upsert("a.md", [[1, ["second"]]])] }),
      store.setMeta("k", "1"),
      store.setMeta("k", "2"),
      store.cache.set([["key", Float32Array.from([1])]]),
      store.cache.set([["key", Float32Array.from([2])]]),
    ]);
    expect((await store.getChunks("a.md")).map((c) => c.text)).toEqual(["second"]);
    expect(await store.getMeta("k")).toBe("2");
    expect(Array.from((await store.cache.get(["key"])).get("key") ?? [])).toEqual([2]);
  });

  it("the cache's use order continues across reopening", async () => {
    const uri = await temp.dir();
    const first = await temp.open({ uri });
    await first.cache.set([["old", Float32Array.from([1])]]);
    await first.cache.set([["newer", Float32Array.from([2])]]);
    await first.close();
    const second = await temp.open({ uri });
    await second.cache.get(["old"]); // now the most recently used
    expect(await second.cache.prune(1)).toBe(1);
    expect([...(await second.cache.get(["old", "newer"])).keys()]).toEqual(["old"]);
  });
});

function paths(hits: ReadonlyArray<{ chunk: { path: string } }>): string[] {
  return hits.map((hit) => hit.chunk.path);
}
