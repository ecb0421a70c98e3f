import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type EngramError, isEngramError } from "@engram/core/driver";
import { connect } from "@lancedb/lancedb";
import { Field, Schema, Utf8 } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { createLanceDbStore, type LanceDbStoreOptions, SCHEMA_VERSION } from "../src/index.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

async function failure(action: Promise<unknown> | (() => unknown)): Promise<EngramError> {
  const error = await (typeof action === "function" ? Promise.resolve().then(action) : action).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isEngramError(error)) throw new Error(`expected an EngramError, got ${String(error)}`);
  return error;
}

describe("options are checked when the store is created", () => {
  it.each([
    [{ uri: "" }, /uri/],
    [{ uri: "x", vectorIndexMinRows: 0 }, /vectorIndexMinRows/],
    [{ uri: "x", fulltextStaleFraction: -1 }, /fulltextStaleFraction/],
    [{ uri: "x", readConsistencySeconds: Number.NaN }, /readConsistencySeconds/],
    [{ uri: "x", versionRetentionMs: Infinity }, /versionRetentionMs/],
    [{ uri: "x", storageOptions: { timeout: 30 as unknown as string } }, /storageOptions.timeout/],
    [
      { uri: "x", vectorIndexMinRow: 5 } as LanceDbStoreOptions,
      /vectorIndexMinRow .*no such option/,
    ],
  ])("%j", async (options, name) => {
    const error = await failure(() => createLanceDbStore(options));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toMatch(name);
    expect(error.hint).toMatch(/store\.options/);
  });
});

describe("a database the store cannot use is refused with a fix", () => {
  it("a path that is a file", async () => {
    const uri = join(await temp.dir(), "not-a-folder");
    await writeFile(uri, "hello");
    const error = await failure((await temp.create({ uri })).init());
    expect(error.code).toBe("STORE_FAILED");
    expect(error.message).toContain(uri);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("object storage that does not answer (storageOptions reach LanceDB)", async () => {
    const store = await temp.create({
      uri: "s3://engram-test/db",
      storageOptions: {
        aws_endpoint: "http://127.0.0.1:9", // the discard port: nothing listens
        allow_http: "true",
        aws_access_key_id: "test",
        aws_secret_access_key: "test",
        region: "us-east-1",
        client_max_retries: "0",
      },
    });
    const error = await failure(store.init());
    expect(error.code).toBe("STORE_FAILED");
    expect(error.message).toContain("s3://engram-test/db");
    expect(error.hint).toMatch(/storageOptions/);
    expect(String(error.cause)).toContain("127.0.0.1:9");
  });

  it("a table of the same name that is not engram's", async () => {
    const uri = await temp.dir();
    const db = await connect(uri);
    await db.createEmptyTable("files", new Schema([new Field("name", new Utf8(), true)]));
    db.close();
    const error = await failure((await temp.create({ uri })).init());
    expect(error.code).toBe("STORE_FAILED");
    expect(error.message).toMatch(/"files".*lacks path/);
    expect(error.hint).toMatch(/folder of its own/);
  });

  it("a layout written by a newer version", async () => {
    const uri = await temp.dir();
    const first = await temp.open({ uri });
    await first.setMeta("store-lancedb.schema", String(SCHEMA_VERSION + 1));
    await first.close();
    const error = await failure((await temp.create({ uri })).init());
    expect(error.code).toBe("STORE_FAILED");
    expect(error.message).toMatch(new RegExp(`layout version ${SCHEMA_VERSION + 1}`));
    expect(error.hint).toMatch(/Upgrade engram|engram sync/);
  });
});

describe("misuse", () => {
  it("every method before init fails with STORE_FAILED naming init()", async () => {
    const store = await temp.create();
    const error = await failure(store.searchText(["a"], 5));
    expect(error.code).toBe("STORE_FAILED");
    expect(error.hint).toMatch(/init\(\)/);
    expect((await failure(store.keyValue.count(""))).code).toBe("STORE_FAILED");
  });

  it("every method after close fails with CLOSED, and close stays idempotent", async () => {
    const store = await temp.open();
    await store.close();
    for (const action of [
      () => store.init(),
      () => store.getMeta("k"),
      () => store.write({}),
      () => store.searchVector(Float32Array.from([1]), 5),
      () => store.stats(),
      () => store.keyValue.get(["k"]),
      () => store.optimize(),
    ]) {
      expect((await failure(action)).code).toBe("CLOSED");
    }
    await expect(store.close()).resolves.toBeUndefined();
  });

  it("close waits for a write in flight", async () => {
    const store = await temp.open();
    const writing = store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    await store.close();
    await expect(writing).resolves.toBeUndefined();
    const again = await temp.open({ uri: store.location.uri });
    expect(await again.getFile("a.md")).toBeDefined();
  });

  it("reset refuses dims that are not a positive integer", async () => {
    const store = await temp.open();
    for (const dims of [0, -4, 1.5, Number.NaN]) {
      expect((await failure(store.reset({ dims }))).code).toBe("INVALID_ARGUMENT");
    }
    expect(await store.dims()).toBeNull();
  });

  it("a batch with one chunk id twice is refused whole", async () => {
    const store = await temp.open();
    const a = upsert("a.md", [[1, ["alpha"]]]);
    const b = upsert("b.md", [[1, ["beta"]]]);
    const [chunk] = b.chunks;
    if (!chunk) throw new Error("upsert() made no chunk");
    const clash = { file: b.file, chunks: [chunk, { ...chunk, startLine: 9 }] };
    const error = await failure(store.write({ upserts: [a, clash] }));
    expect(error.code).toBe("INVALID_ARGUMENT");
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
  });

  it("a batch with a vector of other dimensions changes nothing (checked before any commit)", async () => {
    // The kit skips this check for stores without atomicWrites; this store still refuses whole.
    const store = await temp.open();
    await store.reset({ dims: 4 });
    await store.write({ upserts: [upsert("keep.md", [[1, ["keep"], [1, 0, 0, 0]]])] });
    const error = await failure(
      store.write({
        deletes: ["keep.md"],
        upserts: [
          upsert("good.md", [[1, ["good"], [0, 1, 0, 0]]]),
          upsert("bad.md", [[1, ["bad"], [0, 1, 0]]]),
        ],
      }),
    );
    expect(error.code).toBe("STORE_DIMS_MISMATCH");
    expect((await store.listFiles()).map((f) => f.path)).toEqual(["keep.md"]);
    expect(await store.stats()).toMatchObject({ files: 1, chunks: 1, vectors: 1 });
  });
});
