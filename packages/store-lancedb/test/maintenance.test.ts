import { connect, Index, MatchQuery, type Table } from "@lancedb/lancedb";
import { Field, Schema, Utf8 } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { fulltextIndex, rebuildFulltextIndex } from "../src/fulltext.js";
import {
  COMMITS_BEFORE_OPTIMIZE,
  MAX_SEGMENTS_AT_CLOSE,
  pruneCutoff,
  rebuildsWhole,
  SETTLE_ROWS_AT_CLOSE,
  VECTOR_INDEX_FROM_ROWS,
  VECTOR_INDEX_ROWS_META_KEY,
  WHOLE_AT_CLOSE_MAX_BYTES,
} from "../src/maintenance.js";
import { resolveOptions } from "../src/options.js";
import { TABLES } from "../src/schema.js";
import { vectorIndexKind } from "../src/vectors.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

/** The chunks table's full-text index, as LanceDB lists it. */
async function fulltextIndexOf(chunks: Table) {
  return (await chunks.listIndices()).find((index) => index.indexType === "FTS");
}

/** `count` files of one chunk each, all holding `common` and a term of their own. */
function files(prefix: string, count: number) {
  return Array.from({ length: count }, (_, i) =>
    upsert(`${prefix}/${String(i).padStart(3, "0")}.md`, [[1, ["common", `${prefix}${i}`]]]),
  );
}

describe("full-text index upkeep", () => {
  it("a large write leaves every row in the full-text index", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri });
    await store.write({ upserts: files("a", 50) });
    const index = await fulltextIndexOf(await temp.table(uri, "chunks"));
    expect(index).toMatchObject({ indexType: "FTS", numIndexedRows: 50, numUnindexedRows: 0 });
  });

  it("a small write stays unindexed but searchable until the stale fraction is reached", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, fulltextStaleFraction: 0.2 });
    await store.write({ upserts: files("a", 100) });
    const chunks = await temp.table(uri, "chunks");

    // 2 new rows of 102: under 20 %, so LanceDB scans them next to the index.
    await store.write({ upserts: files("b", 2) });
    expect(await fulltextIndexOf(chunks)).toMatchObject({ numUnindexedRows: 2 });
    expect((await store.searchText(["b1"], 5)).map((hit) => hit.chunk.path)).toEqual(["b/001.md"]);

    // Replacing 15 more (15 deleted + 15 inserted rows): past 20 % in total, so it refreshes.
    await store.write({
      upserts: files("a", 15).map((u) => ({ ...u, file: { ...u.file, size: 1 } })),
    });
    expect(await fulltextIndexOf(chunks)).toMatchObject({
      numIndexedRows: 102,
      numUnindexedRows: 0,
    });
  });

  it("once refreshed, equal chunks written at different times score equally", async () => {
    const store = await temp.open({ fulltextStaleFraction: 10 }); // never by fraction
    await store.write({ upserts: [...files("f", 20), upsert("z.md", [[1, ["same", "words"]]])] });
    await store.write({ upserts: [upsert("a.md", [[1, ["same", "words"]]])] });
    await store.optimize();
    const hits = await store.searchText(["same"], 10);
    expect(hits.map((hit) => hit.chunk.path)).toEqual(["a.md", "z.md"]);
    expect(hits[0]?.score).toBe(hits[1]?.score);
  });

  it("deleted rows stop counting in the statistics once refreshed", async () => {
    const store = await temp.open();
    const rare = upsert("rare.md", [[1, ["needle", "hay"]]]);
    await store.write({ upserts: [rare, ...files("x", 30)] });
    const before = (await store.searchText(["needle"], 1))[0]?.score ?? 0;
    // Add 30 more chunks holding "needle": the term gets common, so its weight must drop.
    const more = Array.from({ length: 30 }, (_, i) => upsert(`n/${i}.md`, [[1, ["needle"]]]));
    await store.write({ upserts: more });
    const common = (await store.searchText(["needle"], 100)).find(
      (h) => h.chunk.path === "rare.md",
    );
    expect(common?.score).toBeLessThan(before);
    // Delete them again: back to the first statistics, exactly.
    await store.write({ deletes: more.map((u) => u.file.path) });
    expect((await store.searchText(["needle"], 1))[0]?.score).toBeCloseTo(before, 5);
  });
});

/**
 * What LanceDB 0.37 does that the upkeep above exists for. If a LanceDB upgrade makes these fail,
 * its index may have learned to absorb writes, and the rebuild policy can be revisited.
 */
describe("LanceDB's full-text index, as the store found it", () => {
  it("scores rows written after the last build with other statistics", async () => {
    const store = await temp.open({ fulltextStaleFraction: 1e9 }); // never rebuild by fraction
    await store.write({ upserts: [...files("f", 20), upsert("z.md", [[1, ["same", "words"]]])] });
    await store.optimize();
    await store.write({ upserts: [upsert("a.md", [[1, ["same", "words"]]])] });
    const [first, second] = await store.searchText(["same"], 10);
    expect(first?.score).not.toBe(second?.score);
  });

  it("keeps rows deleted as a whole fragment in its statistics through optimize()", async () => {
    // Re-indexing a file appends its chunks as a fragment; the next re-index deletes them all.
    const db = await connect(await temp.dir());
    const schema = new Schema([
      new Field("id", new Utf8(), false),
      new Field("terms", new Utf8(), false),
    ]);
    const table = await db.createEmptyTable("c", schema);
    try {
      await table.createIndex("terms", { config: fulltextIndex() });
      const score = async () => {
        const rows = await table
          .query()
          .fullTextSearch(new MatchQuery("needle", "terms"))
          .select(["id", "_score"])
          .limit(100)
          .toArray();
        return (rows as Array<{ id: string; _score: number }>).find((r) => r.id === "rare")?._score;
      };
      await table.add([
        { id: "rare", terms: "needle hay" },
        ...Array.from({ length: 30 }, (_, i) => ({ id: `x${i}`, terms: `common x${i}` })),
      ]);
      await rebuildFulltextIndex(table);
      const alone = await score();
      await table.add(Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, terms: "needle" })));
      await rebuildFulltextIndex(table);
      const crowded = await score();
      expect(crowded).toBeLessThan(alone ?? 0);

      await table.delete("starts_with(id, 'n')");
      await table.optimize();
      await table.optimize();
      expect(await score()).toBe(crowded); // the 30 deleted rows still count
      await rebuildFulltextIndex(table);
      expect(await score()).toBe(alone);
    } finally {
      table.close();
      db.close();
    }
  });

  it("leaves chunks without terms out of its statistics, as FTS5 does", async () => {
    const store = await temp.open();
    await store.write({ upserts: [upsert("a.md", [[1, ["needle", "hay"]]]), ...files("x", 9)] });
    const before = (await store.searchText(["needle"], 1))[0]?.score;
    const empty = Array.from({ length: 10 }, (_, i) => upsert(`e/${i}.md`, [[1, []]]));
    await store.write({ upserts: empty });
    await store.optimize();
    expect(await store.stats()).toMatchObject({ chunks: 20 });
    expect((await store.searchText(["needle"], 1))[0]?.score).toBe(before);
  });
});

describe("filter indexes", () => {
  it("tier and source have bitmap indexes, from the start and after a reset", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri });
    const bitmaps = async () =>
      (await (await temp.table(uri, "chunks")).listIndices())
        .filter((index) => index.indexType === "Bitmap")
        .flatMap((index) => index.columns)
        .sort();
    expect(await bitmaps()).toEqual(["source", "tier"]);
    await store.reset({ dims: 2 });
    expect(await bitmaps()).toEqual(["source", "tier"]);
  });
});

describe("version pruning", () => {
  it("optimize keeps only the versions inside the retention", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, versionRetentionMs: 0, fulltextStaleFraction: 10 });
    for (let i = 0; i < 5; i++) await store.write({ upserts: [upsert(`v${i}.md`, [[1, ["v"]]])] });
    const chunks = await temp.table(uri, "chunks");
    expect((await chunks.listVersions()).length).toBeGreaterThan(5);
    await store.optimize();
    expect((await chunks.listVersions()).length).toBeLessThanOrEqual(2);
    expect(await store.searchText(["v"], 10)).toHaveLength(5);
  });

  it("by default a local store keeps one version of each table once optimized", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri });
    for (let i = 0; i < 3; i++) await store.write({ upserts: [upsert(`v${i}.md`, [[1, ["v"]]])] });
    await store.setMeta("k", "v");
    await store.keyValue.set([["key", Uint8Array.from([1, 2])]]);
    await store.optimize();
    for (const name of Object.values(TABLES)) {
      expect((await (await temp.table(uri, name)).listVersions()).length, name).toBe(1);
    }
    expect(await store.searchText(["v"], 10)).toHaveLength(3);
  });

  it("keeps versions at least as long as a reader's snapshot may be used", () => {
    expect(resolveOptions({ uri: "/tmp/x" }).versionRetentionMs).toBe(0);
    expect(resolveOptions({ uri: "s3://bucket/x" }).versionRetentionMs).toBe(5000);
    expect(resolveOptions({ uri: "/tmp/x", readConsistencySeconds: 60 }).versionRetentionMs).toBe(
      60_000,
    );
    expect(resolveOptions({ uri: "s3://bucket/x", versionRetentionMs: 1 }).versionRetentionMs).toBe(
      1,
    );
  });

  it("prunes by when a version was superseded, not when it was written", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, fulltextStaleFraction: 10 });
    for (let i = 0; i < 3; i++) await store.setMeta("k", `${i}`);
    const meta = await temp.table(uri, "meta");
    const times = (await meta.listVersions()).map((v) => v.timestamp.getTime());
    const [first = 0, second = 0] = times;
    const last = times[times.length - 1] ?? 0;
    const retention = 60_000;
    // The newest version written before now − retention is the cutoff: older ones were replaced
    // before that moment; it was replaced after it, so it stays.
    expect((await pruneCutoff(meta, retention, second + retention)).getTime()).toBe(second);
    expect((await pruneCutoff(meta, retention, last + retention + 1)).getTime()).toBe(last);
    expect((await pruneCutoff(meta, retention, first + retention - 1)).getTime()).toBe(0);
    expect((await pruneCutoff(meta, 0, 123)).getTime()).toBe(123);
  });

  it(`a table is optimized after ${COMMITS_BEFORE_OPTIMIZE} commits`, async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, versionRetentionMs: 0 });
    const meta = await temp.table(uri, "meta");
    for (let i = 0; i < COMMITS_BEFORE_OPTIMIZE - 1; i++) await store.setMeta("k", `${i}`);
    const before = (await meta.listVersions()).length;
    expect(before).toBeGreaterThanOrEqual(COMMITS_BEFORE_OPTIMIZE);
    await store.setMeta("k", "last");
    expect((await meta.listVersions()).length).toBeLessThan(before);
    expect(await store.getMeta("k")).toBe("last");
  });
});

function cosine(a: Float32Array, b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  });
  return dot / Math.sqrt(na * nb);
}

describe("vector index", () => {
  const DIMS = 16;
  /** A unit-ish vector per i, distinct and never parallel to another. */
  const vector = (i: number) =>
    Array.from(
      { length: DIMS },
      (_, d) => Math.sin((i + 1) * (d + 1) * 0.37) + (d === i % DIMS ? 2 : 0),
    );
  /** Files `<prefix>/<from>.md` … `<prefix>/<to − 1>.md` of one chunk each, with term and vector i. */
  const vectorFiles = (prefix: string, from: number, to: number) =>
    Array.from({ length: to - from }, (_, n) =>
      upsert(`${prefix}/${String(from + n).padStart(4, "0")}.md`, [
        [1, [`t${from + n}`], vector(from + n)],
      ]),
    );

  it(`below the threshold, an exact IVF_FLAT index from ${VECTOR_INDEX_FROM_ROWS} vectors`, async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri });
    await store.reset({ dims: DIMS });
    const count = VECTOR_INDEX_FROM_ROWS + 100;
    const paths = (i: number) => `f/${String(i).padStart(4, "0")}.md`;
    await store.write({
      upserts: Array.from({ length: count }, (_, i) =>
        upsert(paths(i), [[1, [`t${i}`], vector(i)]], { tier: i % 100 === 3 ? "mid" : "long" }),
      ),
    });
    const chunks = await temp.table(uri, "chunks");
    expect(await vectorIndexKind(chunks)).toBe("flat");
    await store.write({ upserts: [upsert(paths(count), [[1, ["more"], vector(count)]])] });
    // Rebuilds the full-text index, and the exact vector index with it: one segment, every row.
    await store.optimize();
    expect(await chunks.indexStats("vector_idx")).toMatchObject({
      numIndexedRows: count + 1,
      numIndices: 1,
    });
    const target = Float32Array.from(vector(321));
    const oracle = (keep: (i: number) => boolean, k: number) =>
      Array.from({ length: count + 1 }, (_, i) => i)
        .filter(keep)
        .map((i) => ({ path: paths(i), score: cosine(target, vector(i)) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, k)
        .map((o) => o.path);
    const search = async (filter: { tiers: Array<"long" | "mid"> }, k: number) =>
      (await store.searchVector(target, k, filter)).map((hit) => hit.chunk.path);
    // Leaving out 11 rows (filtered after the search) and all but 11 (filtered before): exact both.
    expect(await search({ tiers: ["long"] }, 20)).toEqual(oracle((i) => i % 100 !== 3, 20));
    expect(await search({ tiers: ["mid"] }, 20)).toEqual(oracle((i) => i % 100 === 3, 20));
  }, 120_000);

  it("is built once the vectors reach the threshold, and search stays right", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, vectorIndexMinRows: 600 });
    await store.reset({ dims: DIMS });
    const batch = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, n) => {
        const i = from + n;
        return upsert(`v/${String(i).padStart(4, "0")}.md`, [[1, [`t${i}`], vector(i)]], {
          tier: i % 10 === 0 ? "mid" : "long",
        });
      });
    await store.write({ upserts: batch(0, 500) });
    const chunks = await temp.table(uri, "chunks");
    const vectorIndexes = async () =>
      (await chunks.listIndices()).filter((index) => index.columns.includes("vector"));
    expect(await vectorIndexes()).toEqual([]);

    await store.write({ upserts: batch(500, 700) });
    expect(await vectorIndexes()).toHaveLength(1);
    expect(await vectorIndexKind(chunks)).toBe("quantised");

    const target = Float32Array.from(vector(123));
    const hits = await store.searchVector(target, 5);
    expect(hits[0]?.chunk.path).toBe("v/0123.md");
    expect(hits[0]?.score).toBeCloseTo(1, 5);
    // A filter keeping 1 row in 10: still k hits, and exactly the best ones (checked by brute force).
    const mid = await store.searchVector(target, 20, { tiers: ["mid"] });
    const oracle = Array.from({ length: 70 }, (_, n) => n * 10)
      .map((i) => ({
        path: `v/${String(i).padStart(4, "0")}.md`,
        score: cosine(target, vector(i)),
      }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 20);
    expect(mid.map((hit) => hit.chunk.path)).toEqual(oracle.map((o) => o.path));
  }, 120_000);

  it("an HNSW index an older version built is searched refined, then replaced by optimize()", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, vectorIndexMinRows: 300 });
    await store.reset({ dims: DIMS });
    await store.write({
      upserts: Array.from({ length: 400 }, (_, i) =>
        upsert(`h/${String(i).padStart(4, "0")}.md`, [[1, [`t${i}`], vector(i)]]),
      ),
    });
    const chunks = await temp.table(uri, "chunks");
    await chunks.createIndex("vector", {
      config: Index.hnswSq({ distanceType: "dot", numPartitions: 1 }),
      replace: true,
    });
    expect(await vectorIndexKind(chunks)).toBe("other");
    const nearest = async () =>
      (await store.searchVector(Float32Array.from(vector(321)), 1))[0]?.chunk.path;
    expect(await nearest()).toBe("h/0321.md");
    await store.optimize();
    expect(await vectorIndexKind(chunks)).toBe("quantised");
    expect(await nearest()).toBe("h/0321.md");
  }, 120_000);

  it("is rebuilt as one segment once the vectors doubled since its last build", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, vectorIndexMinRows: 300, fulltextStaleFraction: 0 });
    await store.reset({ dims: DIMS });
    const batch = (from: number, to: number) => vectorFiles("w", from, to);
    const chunks = await temp.table(uri, "chunks");
    const segments = async () => (await chunks.indexStats("vector_idx"))?.numIndices;
    await store.write({ upserts: batch(0, 300) });
    expect(await store.getMeta(VECTOR_INDEX_ROWS_META_KEY)).toBe("300");
    await store.write({ upserts: batch(300, 400) }); // optimized: the new vectors, a segment apart
    await store.write({ upserts: batch(400, 500) });
    expect(await segments()).toBeGreaterThan(1);
    await store.write({ upserts: batch(500, 600) }); // 600 = twice 300
    expect(await segments()).toBe(1);
    expect(await store.getMeta(VECTOR_INDEX_ROWS_META_KEY)).toBe("600");
    expect((await store.searchVector(Float32Array.from(vector(555)), 1))[0]?.chunk.path).toBe(
      "w/0555.md",
    );
  }, 120_000);

  it("an exact one is left as one segment by a process that added segments, at close", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, fulltextStaleFraction: 0.05 });
    await store.reset({ dims: DIMS });
    const batch = (from: number, to: number) => vectorFiles("e", from, to);
    const chunks = await temp.table(uri, "chunks");
    const vectorIndex = async () => chunks.indexStats("vector_idx");
    await store.write({ upserts: batch(0, VECTOR_INDEX_FROM_ROWS) });
    expect(await vectorIndexKind(chunks)).toBe("flat");
    // 100 rows more are stale enough to rebuild the full-text index; the optimize that follows
    // adds them to the vector index as a second segment.
    const total = VECTOR_INDEX_FROM_ROWS + 100;
    await store.write({ upserts: batch(VECTOR_INDEX_FROM_ROWS, total) });
    expect(await vectorIndex()).toMatchObject({ numIndices: 2, numIndexedRows: total });
    // A process that only read closes: nothing is rebuilt.
    const reader = await temp.open({ uri });
    expect((await reader.searchVector(Float32Array.from(vector(1050)), 1))[0]?.chunk.path).toBe(
      "e/1050.md",
    );
    await reader.close();
    expect(await vectorIndex()).toMatchObject({ numIndices: 2 });
    // The writer closes: one segment over every row, for whichever process searches next, and
    // the index it replaced is pruned (no version but the latest is kept locally).
    await store.close();
    expect(await vectorIndex()).toMatchObject({
      numIndices: 1,
      numIndexedRows: total,
      numUnindexedRows: 0,
    });
    await chunks.checkoutLatest();
    expect(await chunks.listVersions()).toHaveLength(1);
  }, 120_000);
});

describe("rebuildsWhole", () => {
  const small = WHOLE_AT_CLOSE_MAX_BYTES;
  const large = WHOLE_AT_CLOSE_MAX_BYTES + 1;

  it("never rebuilds an index in one segment", () => {
    for (const whole of ["never", "at-close", "always"] as const) {
      expect(rebuildsWhole(whole, 1, small)).toBe(false);
      expect(rebuildsWhole(whole, 0, large)).toBe(false);
    }
  });

  it("rebuilds one in several on optimize() whatever its size, never between writes", () => {
    expect(rebuildsWhole("always", 2, large)).toBe(true);
    expect(rebuildsWhole("never", MAX_SEGMENTS_AT_CLOSE, small)).toBe(false);
  });

  it("at close, rebuilds a small one, and a large one only once its segments reach the cap", () => {
    expect(rebuildsWhole("at-close", 2, small)).toBe(true);
    expect(rebuildsWhole("at-close", MAX_SEGMENTS_AT_CLOSE - 1, large)).toBe(false);
    expect(rebuildsWhole("at-close", MAX_SEGMENTS_AT_CLOSE, large)).toBe(true);
  });
});

describe("closing", () => {
  it(`indexes what a write left unindexed once that reaches ${SETTLE_ROWS_AT_CLOSE} rows`, async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, fulltextStaleFraction: 10 });
    await store.write({ upserts: files("a", SETTLE_ROWS_AT_CLOSE - 1) });
    const chunks = await temp.table(uri, "chunks");
    expect(await fulltextIndexOf(chunks)).toMatchObject({
      numUnindexedRows: SETTLE_ROWS_AT_CLOSE - 1,
    });
    await store.close();
    // Fewer than the bound: left as it is (a few appended lines do not pay for a rebuild).
    expect(await fulltextIndexOf(chunks)).toMatchObject({
      numUnindexedRows: SETTLE_ROWS_AT_CLOSE - 1,
    });
    const again = await temp.open({ uri, fulltextStaleFraction: 10 });
    await again.write({ upserts: files("b", 1) });
    await again.close();
    expect(await fulltextIndexOf(chunks)).toMatchObject({
      numIndexedRows: SETTLE_ROWS_AT_CLOSE,
      numUnindexedRows: 0,
    });
  }, 120_000);
});
