import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryStore } from "@engram/core/driver";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_FOLDER_NAME, type LanceDbStore, lancedbStore } from "../src/index.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();
const opened: MemoryStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function workspace() {
  const root = await temp.dir();
  const indexDir = join(root, ".engram");
  await mkdir(indexDir);
  return { workspace: root, indexDir };
}

async function openWith(
  factory: ReturnType<typeof lancedbStore>,
  context: { workspace: string; indexDir: string },
) {
  const store = await factory(context);
  opened.push(store);
  await store.init();
  return store;
}

describe("lancedbStore (the factory core uses)", () => {
  it("keeps the database in <indexDir>/lancedb by default", async () => {
    const context = await workspace();
    const store = await openWith(lancedbStore(), context);
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    expect(DEFAULT_FOLDER_NAME).toBe("lancedb");
    for (const table of ["meta", "files", "chunks", "key_value"]) {
      const folder = join(context.indexDir, "lancedb", `${table}.lance`);
      expect((await stat(folder)).isDirectory(), folder).toBe(true);
    }
    expect((store as LanceDbStore).location.folder).toBe(join(context.indexDir, "lancedb"));
    expect(store.kind).toBe("lancedb");
    expect(store.capabilities).toEqual({
      vector: true,
      fulltext: true,
      keyValue: true,
      persistent: true,
      atomicWrites: false,
    });
    const stats = await store.stats();
    expect(stats).toMatchObject({ files: 1, chunks: 1, vectors: 0 });
    expect(stats.bytes).toBeGreaterThan(1000);
  });

  it("refuses an option it does not know when the factory is made", () => {
    expect(() => lancedbStore({ vectorIndexMinRow: 5 } as never)).toThrow(
      /lancedb store option vectorIndexMinRow is 5; it must be left out/,
    );
  });

  it("resolves a relative folder against the workspace", async () => {
    const context = await workspace();
    const store = await openWith(lancedbStore({ uri: "data/memory-db" }), context);
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    expect(
      (await stat(join(context.workspace, "data", "memory-db", "chunks.lance"))).isDirectory(),
    ).toBe(true);
    expect((store as LanceDbStore).location).toMatchObject({ kind: "local" });
  });

  it("passes URIs with a scheme through unchanged", async () => {
    const context = await workspace();
    const s3 = (await lancedbStore({
      uri: "s3://bucket/engram",
      storageOptions: { region: "eu-west-1" },
    })(context)) as LanceDbStore;
    expect(s3.location).toEqual({ uri: "s3://bucket/engram", kind: "remote" });
    expect(s3.capabilities.persistent).toBe(true);
    const file = (await lancedbStore({ uri: `file://${context.workspace}/db` })(
      context,
    )) as LanceDbStore;
    expect(file.location).toMatchObject({ kind: "local", folder: join(context.workspace, "db") });
  });

  it("memory:// is private, not persistent, and has no byte count", async () => {
    const store = await openWith(lancedbStore({ uri: "memory://engram-test" }), await workspace());
    expect(store.capabilities.persistent).toBe(false);
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    expect(await store.searchText(["alpha"], 5)).toHaveLength(1);
    expect((await store.stats()).bytes).toBeUndefined();
  });
});
