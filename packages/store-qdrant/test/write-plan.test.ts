import { storeUpsert } from "@engram/core/testing";
import { describe, expect, it } from "vitest";
import { chunkPointId } from "../src/ids.js";
import { batches, planWrite, staleDeletes } from "../src/write-plan.js";

const file = (path: string, mtimeMs = 1000) => storeUpsert(path, [], { mtimeMs }).file;

describe("planWrite", () => {
  it("an empty batch does nothing", () => {
    expect(planWrite({})).toEqual({ removed: [], upserts: [], touches: [] });
  });

  it("deletes, then upserts: a path deleted and upserted is upserted", () => {
    const a = storeUpsert("a.md", [[1, ["alpha"]]]);
    const plan = planWrite({ deletes: ["a.md", "b.md", "b.md"], upserts: [a] });
    expect(plan.removed).toEqual(["b.md"]);
    expect(plan.upserts).toEqual([a]);
  });

  it("the last upsert of a path wins, in first-seen order", () => {
    const a1 = storeUpsert("a.md", [[1, ["one"]]]);
    const b = storeUpsert("b.md", [[1, ["b"]]]);
    const a2 = storeUpsert("a.md", [[5, ["two"]]]);
    expect(planWrite({ upserts: [a1, b, a2] }).upserts).toEqual([a2, b]);
  });

  it("touches set the mtime of an upserted file, skip deleted paths, keep the rest", () => {
    const a = storeUpsert("a.md", [[1, ["alpha"]]]);
    const plan = planWrite({
      upserts: [a],
      deletes: ["gone.md"],
      touches: [file("a.md", 6000), file("gone.md", 7000), file("c.md", 8000), file("c.md", 9000)],
    });
    expect(plan.upserts[0]?.file).toEqual({ ...a.file, mtimeMs: 6000 });
    expect(plan.upserts[0]?.chunks).toBe(a.chunks);
    expect(plan.touches).toEqual([file("c.md", 9000)]);
    expect(plan.removed).toEqual(["gone.md"]);
  });
});

describe("staleDeletes", () => {
  const chunked = (path: string, n: number) =>
    storeUpsert(
      path,
      Array.from({ length: n }, (_, i): [number, string[]] => [i + 1, ["t"]]),
    );

  it("groups files so no request keeps more than maxIds ids", () => {
    const upserts = [
      chunked("a.md", 3),
      chunked("b.md", 2),
      chunked("c.md", 4),
      chunked("d.md", 0),
    ];
    const groups = staleDeletes(upserts, 5);
    expect(groups.map((g) => g.paths)).toEqual([
      ["a.md", "b.md"],
      ["c.md", "d.md"],
    ]);
    expect(groups[0]?.keep).toEqual(
      upserts.slice(0, 2).flatMap((u) => u.chunks.map((c) => chunkPointId(c.id))),
    );
    expect(groups.every((g) => g.keep.length <= 5)).toBe(true);
  });

  it("gives a file larger than maxIds a group of its own", () => {
    const groups = staleDeletes([chunked("a.md", 1), chunked("big.md", 7), chunked("c.md", 1)], 5);
    expect(groups.map((g) => g.paths)).toEqual([["a.md"], ["big.md"], ["c.md"]]);
  });

  it("includes files without chunks (all their old chunks go)", () => {
    expect(staleDeletes([chunked("empty.md", 0)], 5)).toEqual([{ paths: ["empty.md"], keep: [] }]);
    expect(staleDeletes([], 5)).toEqual([]);
  });
});

describe("batches", () => {
  it("slices in order, the last slice shorter", () => {
    expect(batches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batches([1, 2], 5)).toEqual([[1, 2]]);
    expect(batches([], 3)).toEqual([]);
  });

  it("splits a 10,000-point write into batchSize requests", () => {
    const sizes = batches(
      Array.from({ length: 10_000 }, (_, i) => i),
      256,
    ).map((b) => b.length);
    expect(sizes).toHaveLength(40);
    expect(sizes.slice(0, 39).every((n) => n === 256)).toBe(true);
    expect(sizes[39]).toBe(10_000 - 39 * 256);
  });
});
