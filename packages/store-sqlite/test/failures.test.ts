import { mkdir, open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type EngramError, isEngramError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

async function failure(action: Promise<unknown>): Promise<EngramError> {
  const error = await action.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isEngramError(error)) throw new Error(`expected an EngramError, got ${String(error)}`);
  return error;
}

describe("user-caused SQLite failures become STORE_FAILED with a fix", () => {
  it("a file that is not a database", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    await writeFile(path, "this is not a database\n".repeat(500));
    const error = await failure(temp.create({ path }).init());
    expect(error.code).toBe("STORE_FAILED");
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/damaged or not a SQLite database/);
    expect(error.hint).toContain(path);
    expect(error.hint).toMatch(/engram sync/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("an index whose pages were overwritten is replaced, not refused", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const store = await temp.open({ path });
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    await store.close();
    const handle = await open(path, "r+");
    await handle.write(Buffer.alloc(8192, 0xa5), 0, 8192, 100); // keep the header, ruin the schema
    await handle.close();

    // A SQLite file is engram's to replace: moved aside, an empty index in its place.
    const replaced = await temp.open({ path });
    expect(await replaced.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect(await replaced.getMeta("engram.recovered")).toMatch(/damaged-/);
  });

  it("a folder that does not exist", async () => {
    const path = join(await temp.dir(), "missing", "index.sqlite");
    const error = await failure(temp.create({ path }).init());
    expect(error.code).toBe("STORE_FAILED");
    expect(error.hint).toMatch(/folder exists/);
  });

  it("a path that is a directory", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    await mkdir(path);
    const error = await failure(temp.create({ path }).init());
    expect(error.code).toBe("STORE_FAILED");
  });
});

describe("misuse", () => {
  it("every method after close rejects with CLOSED; close stays idempotent", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.close();
    const calls: Array<Promise<unknown>> = [
      store.init(),
      store.getMeta("k"),
      store.setMeta("k", "v"),
      store.reset({ dims: null }),
      store.dims(),
      store.getFile("a.md"),
      store.listFiles(),
      store.write({}),
      store.getChunks("a.md"),
      store.searchText(["a"], 1),
      store.searchVector(Float32Array.from([1]), 1),
      store.stats(),
      store.keyValue?.get(["k"]) ?? Promise.resolve(),
      store.keyValue?.set([["k", Uint8Array.from([1])]]) ?? Promise.resolve(),
      store.keyValue?.count("") ?? Promise.resolve(),
      store.keyValue?.deletePrefix("") ?? Promise.resolve(),
      // What core's in-memory index loads from: guarded like the contract's methods.
      store.generation?.() ?? Promise.resolve(),
      store.getChunksById?.(["x"]) ?? Promise.resolve(),
      store.getVectors?.(["x"]) ?? Promise.resolve(),
      (async () => {
        for await (const _ of store.scanTermCounts?.({}) ?? []) break;
      })(),
    ];
    for (const call of calls) expect((await failure(call)).code).toBe("CLOSED");
    await expect(store.close()).resolves.toBeUndefined();
  });

  it("methods before init reject with a hint to call init()", async () => {
    const store = temp.create({ path: ":memory:" });
    const error = await failure(store.getMeta("k"));
    expect(error.code).toBe("STORE_FAILED");
    expect(error.hint).toMatch(/init\(\)/);
  });

  it("reset refuses dimensions that are not a positive integer", async () => {
    const store = await temp.open({ path: ":memory:" });
    for (const dims of [0, -3, 1.5, Number.NaN]) {
      expect((await failure(store.reset({ dims }))).code).toBe("INVALID_ARGUMENT");
    }
  });

  it("a batch with a duplicate chunk id is refused whole", async () => {
    const store = await temp.open({ path: ":memory:" });
    const a = upsert("a.md", [[1, ["alpha"]]]);
    const b = upsert("b.md", [[1, ["beta"]]]);
    const dup = { ...b.chunks[0], id: a.chunks[0]?.id } as (typeof b.chunks)[number];
    const error = await failure(store.write({ upserts: [a, { file: b.file, chunks: [dup] }] }));
    expect(error.code).toBe("INVALID_ARGUMENT");
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
  });

  it("a chunk written under another file's upsert is refused", async () => {
    const store = await temp.open({ path: ":memory:" });
    const a = upsert("a.md", [[1, ["alpha"]]]);
    const b = upsert("b.md", []);
    const error = await failure(store.write({ upserts: [{ file: b.file, chunks: a.chunks }] }));
    expect(error.code).toBe("INVALID_ARGUMENT");
    expect(await store.listFiles()).toEqual([]);
  });
});

describe("vectors: false", () => {
  it("is a keyword-only store that refuses a vector space", async () => {
    const store = await temp.open({ path: ":memory:", vectors: false });
    expect(store.capabilities).toMatchObject({
      vector: false,
      fulltext: true,
      keyValue: true,
    });
    expect((await failure(store.reset({ dims: 4 }))).code).toBe("INVALID_ARGUMENT");
    await store.reset({ dims: null });
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    expect(await store.searchText(["alpha"], 5)).toHaveLength(1);
    expect(await store.searchVector(Float32Array.from([1, 0]), 5)).toEqual([]);
  });

  it("refuses to open an index that holds vectors", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const withVectors = await temp.open({ path });
    await withVectors.reset({ dims: 4 });
    await withVectors.close();
    const error = await failure(temp.create({ path, vectors: false }).init());
    expect(error.code).toBe("STORE_FAILED");
    expect(error.message).toMatch(/vectors: false/);
  });
});
