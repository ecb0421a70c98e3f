import { describe, expect, it } from "vitest";
import { DirtyPaths } from "../../src/sync/dirty-paths.js";

describe("DirtyPaths", () => {
  it("a sync settles only what was written before it started", () => {
    const dirty = new DirtyPaths();
    dirty.mark("a.md");
    const started = dirty.snapshot();
    dirty.mark("b.md"); // written while the sync runs: maybe scanned already, maybe not
    dirty.settle(started);
    expect(dirty.paths()).toEqual(["b.md"]);
  });

  it("a path written again during the sync stays dirty", () => {
    const dirty = new DirtyPaths();
    dirty.mark("a.md");
    const started = dirty.snapshot();
    dirty.mark("a.md");
    dirty.settle(started);
    expect(dirty.paths()).toEqual(["a.md"]);
  });

  it("a targeted sync settles only its own paths", () => {
    const dirty = new DirtyPaths();
    dirty.mark("a.md");
    dirty.mark("b.md");
    dirty.settle(dirty.snapshot(), ["a.md"]);
    expect(dirty.paths()).toEqual(["b.md"]);
    expect(dirty.size).toBe(1);
  });
});
