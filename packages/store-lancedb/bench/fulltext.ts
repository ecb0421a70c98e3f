/**
 * What keeping LanceDB's full-text index fresh costs, and what skipping it does to rankings. For
 * each size: load N chunks (1,000 per write, the store's default upkeep), time 30 searches, then
 * re-write 1,000 chunks without refreshing the index (so LanceDB scans them next to it), time the
 * searches again, rebuild the full-text index (what the store does once 5 % of rows are stale),
 * compare the top 10 before and after, and time a full `optimize()` (compaction and pruning).
 *
 *   node --import tsx bench/fulltext.ts 10000 50000 100000
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";
import { rebuildFulltextIndex } from "../src/fulltext.js";
import { createLanceDbStore, type LanceDbStore } from "../src/index.js";
import { Corpus, median, timed } from "./data.js";

const QUERIES = 30;
const K = 10;
const sizes = process.argv.slice(2).map(Number);

async function search(store: LanceDbStore, queries: string[][]) {
  await store.searchText(queries[0] ?? [], K); // warm caches
  const times: number[] = [];
  const results: string[][] = [];
  for (const terms of queries) {
    let ids: string[] = [];
    times.push(
      await timed(async () => {
        ids = (await store.searchText(terms, K)).map((hit) => hit.chunk.id);
      }),
    );
    results.push(ids);
  }
  return { p50: median(times), results };
}

function overlap(a: string[][], b: string[][]): number {
  let shared = 0;
  a.forEach((ids, i) => {
    const other = new Set(b[i]);
    shared += ids.filter((id) => other.has(id)).length / Math.max(1, ids.length);
  });
  return Math.round((shared / a.length) * 1000) / 1000;
}

console.log(
  "| chunks | load (s) | search p50 (ms) | write 1k, no rebuild (ms) | search p50, 1k stale | rebuild (s) | top-10 overlap, stale vs rebuilt | optimize() (s) |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const size of sizes.length ? sizes : [10_000, 50_000, 100_000]) {
  const uri = await mkdtemp(join(tmpdir(), "engram-lancedb-bench-"));
  const corpus = new Corpus(11);
  const queries = Array.from({ length: QUERIES }, () => corpus.queryTerms());

  const loader = createLanceDbStore({ uri });
  await loader.init();
  const load = await timed(async () => {
    for (let from = 0; from < size; from += 1000) {
      await loader.write({ upserts: corpus.batch(from, Math.min(size, from + 1000), false) });
    }
    await loader.optimize();
  });
  const fresh = await search(loader, queries);
  await loader.close();

  // Never refresh by fraction: the next write stays unindexed.
  const store = createLanceDbStore({ uri, fulltextStaleFraction: 1e9 });
  await store.init();
  const write = await timed(() => store.write({ upserts: corpus.batch(0, 1000, false) }));
  const stale = await search(store, queries);
  const db = await connect(uri);
  const chunks = await db.openTable("chunks");
  const rebuild = await timed(() => rebuildFulltextIndex(chunks));
  chunks.close();
  db.close();
  const refreshed = await search(store, queries);
  const optimize = await timed(() => store.optimize());
  await store.close();
  await rm(uri, { recursive: true, force: true });

  console.log(
    `| ${size} | ${(load / 1000).toFixed(1)} | ${fresh.p50} | ${Math.round(write)} | ${stale.p50} | ${(rebuild / 1000).toFixed(2)} | ${overlap(stale.results, refreshed.results)} | ${(optimize / 1000).toFixed(2)} |`,
  );
}
