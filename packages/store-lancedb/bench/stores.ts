/**
 * SQLite or LanceDB? The same chunks (384-d vectors, Zipf terms) written to both stores, 1,000 per
 * write: load time, bytes on disk, and median latency of text search, vector search, and vector
 * search under a path-prefix filter (which sqlite-vec cannot apply during its KNN). LanceDB is
 * measured as left by its own upkeep (up to 5 % of rows outside the full-text index, versions of
 * the last minutes kept), then after `optimize()`.
 *
 *   node --import tsx bench/stores.ts 10000 50000
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MemoryStore, SearchFilter } from "@engram/core/driver";
import { createSqliteStore } from "@engram/store-sqlite";
import { createLanceDbStore } from "../src/index.js";
import { Corpus, DIMS, median, timed } from "./data.js";

const QUERIES = 30;
const sizes = process.argv.slice(2).map(Number);

async function p50(run: (i: number) => Promise<unknown>): Promise<number> {
  await run(0); // warm caches
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) times.push(await timed(() => run(i)));
  return median(times);
}

console.log(
  "| chunks | store | load (s) | MB on disk | text p50 (ms) | vector p50 (ms) | vector p50, path prefix (ms) | after optimize(): MB, text p50 (ms) |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const size of sizes.length ? sizes : [10_000, 50_000]) {
  const dir = await mkdtemp(join(tmpdir(), "engram-stores-bench-"));
  const stores: Array<[string, MemoryStore]> = [
    ["sqlite", createSqliteStore({ path: join(dir, "index.sqlite") })],
    // Retention 0 so that optimize() shows the live size; writes use the default upkeep.
    ["lancedb", createLanceDbStore({ uri: join(dir, "lancedb"), versionRetentionMs: 0 })],
  ];
  for (const [name, store] of stores) {
    const corpus = new Corpus(3); // same seed: the same chunks and queries for both stores
    await store.init();
    await store.reset({ dims: DIMS });
    const load = await timed(async () => {
      for (let from = 0; from < size; from += 1000) {
        await store.write({ upserts: corpus.batch(from, Math.min(size, from + 1000), true) });
      }
    });
    const terms = Array.from({ length: QUERIES }, () => corpus.queryTerms());
    const vectors = Array.from({ length: QUERIES }, () => corpus.vector());
    const prefix: SearchFilter = { pathPrefix: "memory/notes-0001" };
    const text = await p50((i) => store.searchText(terms[i] ?? [], 10));
    const vector = await p50((i) => store.searchVector(vectors[i] as Float32Array, 10));
    const filtered = await p50((i) => store.searchVector(vectors[i] as Float32Array, 10, prefix));
    const { bytes = 0 } = await store.stats();
    let optimized = "—";
    if ("optimize" in store && typeof store.optimize === "function") {
      await store.optimize();
      const after = (await store.stats()).bytes ?? 0;
      const textAfter = await p50((i) => store.searchText(terms[i] ?? [], 10));
      optimized = `${(after / 1e6).toFixed(0)}, ${textAfter}`;
    }
    await store.close();
    console.log(
      `| ${size} | ${name} | ${(load / 1000).toFixed(1)} | ${(bytes / 1e6).toFixed(0)} | ${text} | ${vector} | ${filtered} | ${optimized} |`,
    );
  }
  await rm(dir, { recursive: true, force: true });
}
