import { connect, Index } from "@lancedb/lancedb";
import { describe, expect, it } from "vitest";
import { chunksSchema, toChunkRow, unitLength } from "../src/schema.js";
import { ChunksShape, searchVector } from "../src/vectors.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();
const DIMS = 16;
/** Distinct, never parallel vectors. */
const vector = (i: number) =>
  Array.from(
    { length: DIMS },
    (_, d) => Math.sin((i + 1) * (d + 1) * 0.37) + (d === i % DIMS ? 2 : 0),
  );

describe("vector search over an ANN index", () => {
  it("repeats a search exactly when a selective filter leaves the index short", async () => {
    const db = await connect(await temp.dir());
    const table = await db.createEmptyTable("chunks", chunksSchema(DIMS));
    try {
      // 3,000 chunks, 6 of them "mid"; an index of 64 partitions, of which a query probes 20.
      const upserts = Array.from({ length: 3000 }, (_, i) =>
        upsert(`v/${String(i).padStart(4, "0")}.md`, [[1, [`t${i}`], vector(i)]], {
          tier: i % 500 === 7 ? "mid" : "long",
        }),
      );
      await table.add(upserts.flatMap((u) => u.chunks.map((c) => toChunkRow(c, true))));
      await table.createIndex("vector", {
        config: Index.ivfRq({ distanceType: "dot", numPartitions: 64, numBits: 1 }),
      });
      const query = Float32Array.from(vector(100));
      const unit = Float32Array.from(unitLength(query) ?? []);
      const filter = { tiers: ["mid" as const] };

      const annOnly = await table
        .query()
        .nearestTo(unit)
        .column("vector")
        .distanceType("dot")
        .where("`tier` IN ('mid')")
        .select(["id", "_distance"])
        .limit(6)
        .toArray();
      expect(annOnly.length).toBeLessThan(6); // the premise: LanceDB alone comes back short

      const hits = await searchVector(table, new ChunksShape(), query, 6, filter);
      expect(hits.map((hit) => hit.chunk.path).sort()).toEqual(
        [7, 507, 1007, 1507, 2007, 2507].map((i) => `v/${String(i).padStart(4, "0")}.md`),
      );
    } finally {
      table.close();
      db.close();
    }
  });

  it("stores vectors at unit length: scores are cosines, and a zero vector never matches", async () => {
    const store = await temp.open();
    await store.reset({ dims: 2 });
    await store.write({
      upserts: [
        upsert("long.md", [[1, ["a"], [30, 40]]]),
        upsert("zero.md", [[1, ["b"], [0, 0]]]),
        upsert("short.md", [[1, ["c"], [0, 0.5]]]),
      ],
    });
    const hits = await store.searchVector(Float32Array.from([2, 0]), 5);
    expect(hits.map((hit) => hit.chunk.path)).toEqual(["long.md", "short.md"]);
    expect(hits[0]?.score).toBeCloseTo(0.6, 6);
    expect(hits[1]?.score).toBeCloseTo(0, 6);
  });
});
