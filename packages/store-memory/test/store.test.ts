import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createInMemoryStore } from "../src/index.js";
import { locations, rejection, upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

describe("lifecycle", () => {
  it("refuses use before init with a hint, and after close with CLOSED", async () => {
    const store = temp.create();
    const early = await rejection(store.getMeta("k"));
    expect(early.code).toBe("STORE_FAILED");
    expect(early.hint).toMatch(/init\(\)/);
    expect((await rejection(store.keyValue?.count("") as Promise<number>)).code).toBe(
      "STORE_FAILED",
    );

    await Promise.all([store.init(), store.init()]);
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    await store.close();
    for (const action of [
      store.getFile("a.md"),
      store.searchText(["alpha"], 5),
      store.write({}),
      store.keyValue?.get(["k"]) as Promise<unknown>,
      store.init(),
    ]) {
      expect((await rejection(action)).code).toBe("CLOSED");
    }
  });

  it("declares its capabilities: persistent only with a snapshot file", async () => {
    const plain = temp.create();
    expect(plain.kind).toBe("memory");
    expect(plain.capabilities).toEqual({
      vector: true,
      fulltext: true,
      keyValue: true,
      persistent: false,
      atomicWrites: true,
    });
    const saved = temp.create({ snapshotPath: "relative/snapshot.jsonl" });
    expect(saved.capabilities.persistent).toBe(true);
    expect(saved.snapshotPath).toBe(resolve("relative/snapshot.jsonl"));
    await plain.init();
    expect((await plain.stats()).bytes).toBeUndefined();
  });

  it("refuses options that cannot work with CONFIG_INVALID", async () => {
    for (const options of [
      { snapshotPath: "" },
      { snapshotIntervalMs: 1000 },
      { snapshotPath: "s.jsonl", snapshotIntervalMs: -1 },
      { snapshotPath: "s.jsonl", snapshotIntervalMs: 1.5 },
      { snapshotPath: "s.jsonl", snapshotIntervalMs: 2 ** 31 },
    ]) {
      let code: unknown;
      try {
        createInMemoryStore(options);
      } catch (error) {
        code = (error as { code: string }).code;
      }
      expect(code, JSON.stringify(options)).toBe("CONFIG_INVALID");
    }
    const store = await temp.open();
    expect((await rejection(store.snapshot())).code).toBe("CONFIG_INVALID");
  });

  it("refuses reset to dims that are not a positive integer", async () => {
    const store = await temp.open();
    for (const dims of [0, -4, 2.5, Number.NaN]) {
      expect((await rejection(store.reset({ dims }))).code).toBe("INVALID_ARGUMENT");
    }
    expect(await store.dims()).toBeNull();
  });
});

describe("write", () => {
  it("refuses a chunk id held by another file, applying nothing", async () => {
    const store = await temp.open();
    const a = upsert("a.md", [[1, ["alpha"]]]);
    await store.write({ upserts: [a] });
    const thief = upsert("b.md", [[1, ["beta"]]]);
    const stolen = { ...thief, chunks: [{ ...a.chunks[0], path: "b.md" } as (typeof a.chunks)[0]] };
    const refused = await rejection(
      store.write({ upserts: [upsert("c.md", [[1, ["gamma"]]]), stolen] }),
    );
    expect(refused.code).toBe("INVALID_ARGUMENT");
    expect(refused.message).toContain("a.md");
    expect(await store.listFiles()).toEqual([a.file]);
    expect(await store.searchText(["gamma"], 5)).toEqual([]);

    const twice = upsert("d.md", [[1, ["x"]]]);
    const refusedTwice = await rejection(
      store.write({ upserts: [{ ...twice, chunks: [...twice.chunks, ...twice.chunks] }] }),
    );
    expect(refusedTwice.code).toBe("INVALID_ARGUMENT");
  });

  it("lets an id move to another file when its old file goes in the same batch", async () => {
    const store = await temp.open();
    const a = upsert("a.md", [[1, ["alpha"]]]);
    await store.write({ upserts: [a] });
    await store.write({ upserts: [a] }); // re-indexing a file reuses its ids
    const moved = { file: { ...a.file, path: "b.md" }, chunks: [{ ...a.chunks[0], path: "b.md" }] };
    await store.write({ deletes: ["a.md"], upserts: [moved as typeof a] });
    expect(locations(await store.searchText(["alpha"], 5))).toEqual(["b.md:1"]);
  });

  it("keeps its own copies: changing what was written or read changes nothing", async () => {
    const store = await temp.open();
    await store.reset({ dims: 2 });
    const a = upsert("a.md", [[1, ["alpha"], [1, 0]]]);
    (a.chunks[0] as { headings: string[] }).headings = ["H"];
    await store.write({ upserts: [a] });
    const chunk = a.chunks[0] as (typeof a.chunks)[0];
    chunk.terms.push("sneaky");
    chunk.headings.push("changed");
    (chunk.embedding as Float32Array)[0] = -1;
    a.file.mtimeMs = 5;

    const [read] = await store.getChunks("a.md");
    read?.headings.push("mutated");
    const file = await store.getFile("a.md");
    if (file) file.hash = "mutated";
    const [hit] = await store.searchText(["alpha"], 1);
    hit?.chunk.headings.push("mutated");

    expect((await store.getChunks("a.md"))[0]?.headings).toEqual(["H"]);
    expect((await store.getFile("a.md"))?.hash).toBe("0".repeat(64));
    expect((await store.getFile("a.md"))?.mtimeMs).toBe(1000);
    expect(await store.searchText(["sneaky"], 5)).toEqual([]);
    expect((await store.searchVector(Float32Array.from([1, 0]), 1))[0]?.score).toBeCloseTo(1, 6);
  });
});

describe("searchVector", () => {
  it("leaves out zero vectors and answers a zero query with nothing", async () => {
    const store = await temp.open();
    await store.reset({ dims: 3 });
    await store.write({
      upserts: [
        upsert("zero.md", [[1, ["z"], [0, 0, 0]]]),
        upsert("one.md", [[1, ["o"], [0, 0, 2]]]),
      ],
    });
    expect(locations(await store.searchVector(Float32Array.from([1, 1, 1]), 10))).toEqual([
      "one.md:1",
    ]);
    expect(await store.searchVector(Float32Array.from([0, 0, 0]), 10)).toEqual([]);
    expect(await store.stats()).toMatchObject({ chunks: 2, vectors: 2 });
  });

  it("keeps scores within [-1, 1] (rounding can push a cosine past 1)", async () => {
    const store = await temp.open();
    await store.reset({ dims: 3 });
    // Unclamped, this vector's cosine with itself comes out as 1.0000000000000002.
    const v = [0.06932416558265686, 0.8869155049324036, 0.36943385004997253];
    await store.write({
      upserts: [upsert("a.md", [[1, ["a"], v]]), upsert("b.md", [[1, ["b"], v.map((x) => x * 7)]])],
    });
    const hits = await store.searchVector(Float32Array.from(v), 2);
    expect(locations(hits)).toEqual(["a.md:1", "b.md:1"]);
    for (const hit of hits) {
      expect(hit.score).toBeLessThanOrEqual(1);
      expect(hit.score).toBeCloseTo(1, 6);
    }
    const opposite = await store.searchVector(Float32Array.from(v.map((x) => -x)), 2);
    for (const hit of opposite) expect(hit.score).toBeGreaterThanOrEqual(-1);
  });
});
