import { describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

/**
 * LanceDB's top-k keeps an arbitrary subset of a tie at the cut-off (in practice the rows written
 * first). Writing the tied chunks in reverse path order makes that subset the wrong one, so only a
 * store that completes the tie group before ordering it by path passes.
 */
describe("ties are completed before they are ordered", () => {
  const paths = Array.from({ length: 12 }, (_, i) => `tie/${String.fromCharCode(108 - i)}.md`); // l … a

  it("in text search", async () => {
    const store = await temp.open();
    await store.write({
      upserts: [
        ...paths.map((path) => upsert(path, [[1, ["tied", "words"]]])),
        ...Array.from({ length: 20 }, (_, i) => upsert(`other/${i}.md`, [[1, ["filler"]]])),
      ],
    });
    const hits = await store.searchText(["tied"], 3);
    expect(hits.map((hit) => hit.chunk.path)).toEqual(["tie/a.md", "tie/b.md", "tie/c.md"]);
  });

  it("in vector search", async () => {
    const store = await temp.open();
    await store.reset({ dims: 3 });
    await store.write({
      upserts: [
        ...paths.map((path) => upsert(path, [[1, ["t"], [0, 1, 0]]])),
        upsert("far.md", [[1, ["t"], [1, 0, 0]]]),
      ],
    });
    const hits = await store.searchVector(Float32Array.from([0, 1, 0]), 3);
    expect(hits.map((hit) => hit.chunk.path)).toEqual(["tie/a.md", "tie/b.md", "tie/c.md"]);
  });
});
