/**
 * Which ANN index? LanceDB's default IVF-PQ against IVF-HNSW-SQ (both cosine, default settings) on
 * the same 384-d vectors, each queried with and without `refineFactor(5)` (re-ranking 5× the
 * candidates by exact distance): build time, median latency, recall@10 against exact search.
 * Straight on LanceDB, so each index type is measured alone.
 *
 *   node --import tsx bench/index-types.ts 10000 50000
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, Index, type Table, type VectorQuery } from "@lancedb/lancedb";
import { Field, FixedSizeList, Float32, Schema, Utf8 } from "apache-arrow";
import { Corpus, DIMS, median, timed } from "./data.js";

const QUERIES = 30;
const K = 10;
const sizes = process.argv.slice(2).map(Number);

async function run(table: Table, queries: Float32Array[], shape: (q: VectorQuery) => VectorQuery) {
  const ids: string[][] = [];
  const times: number[] = [];
  for (const query of queries) {
    const q = shape(table.query().nearestTo(query).distanceType("cosine"));
    let rows: Array<{ id: string }> = [];
    times.push(
      await timed(async () => (rows = await q.select(["id", "_distance"]).limit(K).toArray())),
    );
    ids.push(rows.map((row) => row.id));
  }
  return { p50: median(times), ids };
}

function recall(found: string[][], exact: string[][]): number {
  let hit = 0;
  found.forEach((ids, i) => {
    const truth = new Set(exact[i]);
    hit += ids.filter((id) => truth.has(id)).length;
  });
  return Math.round((hit / (K * found.length)) * 1000) / 1000;
}

console.log(
  "| vectors | index | build (s) | p50 (ms) | recall@10 | p50 refined ×5 (ms) | recall@10 refined |",
);
console.log("|---|---|---|---|---|---|---|");
for (const size of sizes.length ? sizes : [10_000, 50_000]) {
  for (const [name, config] of [
    ["IVF-PQ", () => Index.ivfPq({ distanceType: "cosine" })],
    ["IVF-HNSW-SQ", () => Index.hnswSq({ distanceType: "cosine" })],
  ] as const) {
    const dir = await mkdtemp(join(tmpdir(), "engram-index-bench-"));
    const db = await connect(dir);
    const schema = new Schema([
      new Field("id", new Utf8(), false),
      new Field("vector", new FixedSizeList(DIMS, new Field("item", new Float32(), true)), true),
    ]);
    const table = await db.createEmptyTable("v", schema);
    const corpus = new Corpus(7);
    for (let from = 0; from < size; from += 5000) {
      const rows = Array.from({ length: Math.min(5000, size - from) }, (_, i) => ({
        id: `r${from + i}`,
        vector: Array.from(corpus.vector()),
      }));
      await table.add(rows);
    }
    await table.optimize();
    const queries = Array.from({ length: QUERIES }, () => corpus.vector());
    await run(table, queries, (q) => q.bypassVectorIndex()); // warm caches
    const exact = await run(table, queries, (q) => q.bypassVectorIndex());
    const build = await timed(() => table.createIndex("vector", { config: config() }));
    const plain = await run(table, queries, (q) => q);
    const refined = await run(table, queries, (q) => q.refineFactor(5));
    console.log(
      `| ${size} | ${name} | ${(build / 1000).toFixed(1)} | ${plain.p50} | ${recall(plain.ids, exact.ids)} | ${refined.p50} | ${recall(refined.ids, exact.ids)} |`,
    );
    table.close();
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
