/**
 * When does an ANN index pay off? For each size: load N chunks with 384-d vectors into a store
 * that searches exactly, time 30 queries (with and without a tier filter), then build the HNSW
 * index (`optimize()` with `vectorIndexMinRows: 1`) and time the same queries, with recall@10
 * against the exact results.
 *
 *   node --import tsx bench/vector-index.ts 10000 50000 100000
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SearchFilter, StoreHit } from "@engram/core/driver";
import { createLanceDbStore, type LanceDbStore } from "../src/index.js";
import { Corpus, DIMS, median, timed } from "./data.js";

const QUERIES = 30;
const K = 10;
const sizes = process.argv.slice(2).map(Number);

async function measure(store: LanceDbStore, queries: Float32Array[], filter?: SearchFilter) {
  const results: string[][] = [];
  const times: number[] = [];
  await store.searchVector(queries[0] as Float32Array, K, filter); // warm caches
  for (const query of queries) {
    let hits: StoreHit[] = [];
    times.push(await timed(async () => (hits = await store.searchVector(query, K, filter))));
    results.push(hits.map((hit) => hit.chunk.id));
  }
  return { p50: median(times), results };
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
  "| vectors | load (s) | exact p50 (ms) | exact p50, filtered | index build (s) | HNSW p50 (ms) | recall@10 | HNSW p50, filtered | recall@10, filtered |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const size of sizes.length ? sizes : [10_000, 50_000, 100_000]) {
  const dir = await mkdtemp(join(tmpdir(), "engram-lancedb-bench-"));
  const corpus = new Corpus(7);
  const queries = Array.from({ length: QUERIES }, () => corpus.vector());
  const filter: SearchFilter = { tiers: ["short"] };

  const exactStore = createLanceDbStore({ uri: dir, vectorIndexMinRows: Infinity });
  await exactStore.init();
  await exactStore.reset({ dims: DIMS });
  const load = await timed(async () => {
    for (let from = 0; from < size; from += 1000) {
      await exactStore.write({ upserts: corpus.batch(from, Math.min(size, from + 1000), true) });
    }
    await exactStore.optimize();
  });
  const exact = await measure(exactStore, queries);
  const exactFiltered = await measure(exactStore, queries, filter);
  await exactStore.close();

  const annStore = createLanceDbStore({ uri: dir, vectorIndexMinRows: 1 });
  await annStore.init();
  const build = await timed(() => annStore.optimize());
  const ann = await measure(annStore, queries);
  const annFiltered = await measure(annStore, queries, filter);
  await annStore.close();
  await rm(dir, { recursive: true, force: true });

  console.log(
    `| ${size} | ${(load / 1000).toFixed(1)} | ${exact.p50} | ${exactFiltered.p50} | ${(build / 1000).toFixed(1)} | ${ann.p50} | ${recall(ann.results, exact.results)} | ${annFiltered.p50} | ${recall(annFiltered.results, exactFiltered.results)} |`,
  );
}
