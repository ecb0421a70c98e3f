/**
 * Flat against quantised: the store's exact IVF_FLAT index (one partition) and its IVF_RQ index
 * (one partition, 4-bit codes, `refineFactor(5)`) over the vectors of an existing engram LanceDB
 * folder — e.g. the `.engram/lancedb` of an `engram-bench perf` workspace, or any workspace synced
 * with `store: lancedbStore()` — copied into a scratch table. Prints each index's build time, size
 * on disk, CPU per query (p50) and recall@25 against an exact scan, for queries near stored vectors
 * (each a stored vector, slightly perturbed, so its true neighbours are known to be close).
 *
 *   node --import tsx bench/quantised-index.ts /path/to/workspace/.engram/lancedb
 */
import { readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, Index } from "@lancedb/lancedb";
import { median } from "./data.js";

const QUERIES = 40;
const K = 25;
const REFINE = 5;

const folder = process.argv[2];
if (!folder) throw new Error("usage: quantised-index.ts <engram lancedb folder>");
const source = await (await connect(folder)).openTable("chunks");
const data = await source.query().select(["id", "vector"]).where("vector IS NOT NULL").toArrow();
const vectors = data.getChild("vector");
if (!vectors) throw new Error(`${folder}: the chunks table has no vectors`);
const queries = Array.from({ length: QUERIES }, (_, i) => {
  const near = Array.from(vectors.get((i * 7919) % data.numRows).toArray() as Float32Array);
  const moved = near.map((x, d) => x + 0.05 * Math.sin(i * 31 + d));
  const norm = Math.hypot(...moved);
  return moved.map((x) => x / norm);
});

const scratch = join(tmpdir(), `engram-quantised-${process.pid}`);
const db = await connect(scratch);
const table = await db.createTable("chunks", data, { mode: "overwrite" });
const search = (q: number[]) =>
  table.query().nearestTo(q).distanceType("dot").select(["id", "_distance"]).limit(K);
const exact: string[][] = [];
for (const q of queries) {
  exact.push((await search(q).bypassVectorIndex().toArray()).map((row) => row.id));
}

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

console.log(`${data.numRows} vectors of ${vectors.type.listSize} dimensions, ${QUERIES} queries`);
console.log("| index | build (s) | index MB | CPU p50 (ms) | recall@25 |");
console.log("| --- | --: | --: | --: | --: |");
for (const [name, config, refine] of [
  ["flat", Index.ivfFlat({ distanceType: "dot", numPartitions: 1 }), 0],
  ["quantised", Index.ivfRq({ distanceType: "dot", numPartitions: 1, numBits: 4 }), REFINE],
] as const) {
  const start = performance.now();
  await table.createIndex("vector", { config, replace: true });
  const build = (performance.now() - start) / 1000;
  await table.optimize({ cleanupOlderThan: new Date() });
  const bytes = await bytesUnder(join(scratch, "chunks.lance", "_indices"));
  const cpu: number[] = [];
  let found = 0;
  for (let pass = 0; pass < 2; pass++) {
    for (const [i, q] of queries.entries()) {
      const before = process.cpuUsage();
      let query = search(q);
      if (refine) query = query.refineFactor(refine);
      const ids = (await query.toArray()).map((row) => row.id as string);
      const used = process.cpuUsage(before);
      if (pass === 0) continue; // the first pass loads the index into LanceDB's cache
      cpu.push((used.user + used.system) / 1000);
      found += ids.filter((id) => exact[i]?.includes(id)).length;
    }
  }
  const recall = found / (K * QUERIES);
  console.log(
    `| ${name} | ${build.toFixed(1)} | ${(bytes / 1e6).toFixed(1)} | ${median(cpu).toFixed(2)} | ${recall.toFixed(3)} |`,
  );
}
table.close();
db.close();
await rm(scratch, { recursive: true, force: true });
