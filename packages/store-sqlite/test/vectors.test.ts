import { describe, expect, it } from "vitest";
import { KNN_EXTRA_ROWS, MAX_KNN_K } from "../src/vectors.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();
const lines = (hits: Array<{ chunk: { path: string; startLine: number } }>) =>
  hits.map((hit) => `${hit.chunk.path}:${hit.chunk.startLine}`);

describe("vector search beyond vec0's KNN limits", () => {
  it("a k above vec0's limit scans exactly", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.reset({ dims: 2 });
    await store.write({
      upserts: [
        upsert(
          "a.md",
          Array.from(
            { length: 10 },
            (_, i) => [i + 1, ["t"], [1, i]] as [number, string[], number[]],
          ),
        ),
      ],
    });
    const hits = await store.searchVector(Float32Array.from([1, 0]), MAX_KNN_K + 1);
    expect(lines(hits)).toEqual(Array.from({ length: 10 }, (_, i) => `a.md:${i + 1}`));
    expect(hits[0]?.score).toBeCloseTo(1, 6);
  });

  it("a tie group larger than vec0's limit still comes back in path, line order", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.reset({ dims: 2 });
    const count = MAX_KNN_K + 100;
    const chunks = Array.from(
      { length: count },
      (_, i) => [count - i, ["t"], [0, 1]] as [number, string[], number[]],
    );
    await store.write({
      upserts: [upsert("tied.md", chunks), upsert("best.md", [[1, ["t"], [0.1, 1]]])],
    });
    const hits = await store.searchVector(Float32Array.from([0.1, 1]), 3, { tiers: ["long"] });
    expect(lines(hits)).toEqual(["best.md:1", "tied.md:1", "tied.md:2"]);
  });

  it("a tie group beyond the rows first fetched is asked again, and comes back in order", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.reset({ dims: 2 });
    // Three times the first fetch (k + KNN_EXTRA_ROWS), lines 1 and 2 written in the middle: the
    // first rows vec0 returns of the tie hold neither, whichever of the tied rows it prefers.
    const count = 3 * (3 + KNN_EXTRA_ROWS);
    const order = Array.from({ length: count - 2 }, (_, i) => i + 3);
    order.splice(count / 2, 0, 1, 2);
    const chunks = order.map((line) => [line, ["t"], [0, 1]] as [number, string[], number[]]);
    await store.write({
      upserts: [upsert("tied.md", chunks), upsert("best.md", [[1, ["t"], [0.1, 1]]])],
    });
    const hits = await store.searchVector(Float32Array.from([0.1, 1]), 3);
    expect(lines(hits)).toEqual(["best.md:1", "tied.md:1", "tied.md:2"]);
  });

  it("a zero query vector has no cosine similarity and finds nothing", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.reset({ dims: 2 });
    await store.write({ upserts: [upsert("a.md", [[1, ["t"], [1, 0]]])] });
    expect(await store.searchVector(Float32Array.from([0, 0]), 5)).toEqual([]);
    expect(await store.searchVector(Float32Array.from([0, 0]), 5, { pathPrefix: "a" })).toEqual([]);
  });

  it("reads embeddings from any Float32Array view", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.reset({ dims: 2 });
    const backing = new Float32Array([9, 9, 1, 0, 9]);
    const view = backing.subarray(2, 4);
    const batch = upsert("a.md", [[1, ["t"]]]);
    const chunk = batch.chunks[0];
    if (!chunk) throw new Error("no chunk");
    chunk.embedding = view;
    await store.write({ upserts: [batch] });
    const query = new Float32Array([7, 1, 0]).subarray(1); // [1, 0] at byte offset 4
    const hits = await store.searchVector(query, 1);
    expect(hits[0]?.score).toBeCloseTo(1, 6);
  });
});
