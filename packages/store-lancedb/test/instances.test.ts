import { EmbeddingCache } from "@engram/core/driver";
import { connect } from "@lancedb/lancedb";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../src/index.js";
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
    await writer.setMeta("engram.pending", "[]");
    expect(await reader.getMetas(["engram.identity", "engram.pending"])).toEqual(
      new Map([
        ["engram.identity", "x"],
        ["engram.pending", "[]"],
      ]),
    );
    await writer.reset({ dims: 4 });
    expect(await reader.dims()).toBe(4);
    expect(await reader.listFiles()).toEqual([]);
  });

  it("searches issued together see the writer's last commit, filtered as asked", async () => {
    const uri = await temp.dir();
    const writer = await temp.open({ uri });
    const reader = await temp.open({ uri });
    await writer.reset({ dims: 2 });
    const filter = { tiers: ["long" as const] };
    const search = () =>
      Promise.all([
        reader.dims(),
        reader.searchText(["alpha"], 5, filter),
        reader.searchVector(Float32Array.from([1, 0]), 5, filter),
      ]);
    const long = upsert("a.md", [[1, ["alpha"], [1, 0]]]);
    await writer.write({ upserts: [long] });
    expect((await search()).map((r) => (Array.isArray(r) ? r.length : r))).toEqual([2, 1, 1]);
    // The chunk moves to the archive tier: the filter now leaves it out on both sides.
    await writer.write({
      upserts: [upsert("a.md", [[1, ["alpha"], [1, 0]]], { tier: "archive" })],
    });
    expect((await search()).map((r) => (Array.isArray(r) ? r.length : r))).toEqual([2, 0, 0]);
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
      store.keyValue.set([["key", Uint8Array.from([1])]]),
      store.keyValue.set([["key", Uint8Array.from([2])]]),
    ]);
    expect((await store.getChunks("a.md")).map((c) => c.text)).toEqual(["second"]);
    expect(await store.getMeta("k")).toBe("2");
    expect(Array.from((await store.keyValue.get(["key"])).get("key") ?? [])).toEqual([2]);
  });

  it("the key-value table is shared across reopening", async () => {
    const uri = await temp.dir();
    const first = await temp.open({ uri });
    await first.keyValue.set([["embedding/0/a", Uint8Array.from([1])]]);
    await first.close();
    const second = await temp.open({ uri });
    expect(await second.keyValue.count("embedding/")).toBe(1);
    expect(await second.keyValue.deletePrefix("embedding/")).toBe(1);
    expect(await second.keyValue.count("")).toBe(0);
  });

  it("a layout-2 index starts over empty with its dimensions; meta and the key-value map stay", async () => {
    const uri = await temp.dir();
    const db = await connect(uri);
    const meta = await db.createTable("meta", [
      { key: "store-lancedb.schema", value: "2" },
      { key: "engram.identity", value: "x" },
    ]);
    const files = await db.createTable("files", [
      { path: "a.md", source: "memory", tier: "long", hash: "h", mtime_ms: 1, size: 2 },
    ]);
    const old = ["id", "path", "source", "tier", "headings", "text", "hash", "terms"];
    const chunks = await db.createTable("chunks", [
      {
        ...Object.fromEntries(old.map((c) => [c, "a.md"])),
        start_line: 1,
        end_line: 1,
        vector: [1, 0, 0],
      },
    ]);
    const keyValue = await db.createTable("key_value", [{ key: "k", value: Buffer.from([7]) }]);
    for (const table of [meta, files, chunks, keyValue, db]) table.close();

    const store = await temp.open({ uri });
    expect(await store.dims()).toBe(3);
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect(await store.getMeta("engram.identity")).toBe("x");
    expect(await store.getMeta("store-lancedb.schema")).toBe(String(SCHEMA_VERSION));
    expect(Array.from((await store.keyValue.get(["k"])).get("k") ?? [])).toEqual([7]);
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"], [0, 1, 0]]])] });
    expect((await store.searchText(["alpha"], 5)).map((hit) => hit.chunk.path)).toEqual(["a.md"]);
  });

  it("a layout-1 embedding cache moves into the key-value table, where core's cache finds it", async () => {
    const uri = await temp.dir();
    const db = await connect(uri);
    const old = await db.createTable("embedding_cache", [
      { key: "openai:small:2:中文", vector: [0.5, -1], last_used: 1 },
    ]);
    old.close();
    db.close();
    const store = await temp.open({ uri });
    const found = await new EmbeddingCache(store.keyValue).get(["openai:small:2:中文"]);
    expect(Array.from(found.get("openai:small:2:中文") ?? [])).toEqual([0.5, -1]);
    const after = await connect(uri);
    expect(await after.tableNames()).not.toContain("embedding_cache");
    after.close();
  });
});

function paths(hits: ReadonlyArray<{ chunk: { path: string } }>): string[] {
  return hits.map((hit) => hit.chunk.path);
}
