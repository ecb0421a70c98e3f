import type { SearchFilter } from "@engram/core/driver";
import { Index, type Table } from "@lancedb/lancedb";
import { type Scored, topK } from "./ranking.js";
import type { ChunkRow } from "./rows.js";
import { CHUNK_COLUMNS, VECTOR_COLUMN } from "./schema.js";
import { filterWhere } from "./sql.js";

// LanceDB 0.37 warns on stderr whenever it reads a vector index's statistics (as `listIndices`
// does) unless this is set; "false" opts into its announced default (centroids left out of the
// statistics, which the store never reads). An explicit setting by the user wins.
process.env.LANCE_INCLUDE_VECTOR_CENTROIDS ??= "false";

/**
 * With an ANN index, fetch this many times `limit` candidates and re-rank them by their exact
 * distance. Measured (`bench/index-types.ts`, README): HNSW-SQ's own quantised distances give
 * recall@10 of about 0.84; refined ×5, 1.0 for a few ms more.
 */
const REFINE_FACTOR = 5;

/**
 * The ANN index the store builds once the table is large enough: HNSW over scalar-quantised
 * vectors, cosine. Chosen over IVF-PQ, LanceDB's default, by measurement (`bench/index-types.ts`):
 * IVF-PQ with default settings reached a far lower recall@10 (0.34 at 50k vectors, refined) and
 * took longer to build.
 */
export function vectorIndex(): Index {
  return Index.hnswSq({ distanceType: "cosine" });
}

/** True when `table` has an index on the vector column. */
export async function hasVectorIndex(table: Table): Promise<boolean> {
  const indices = await table.listIndices();
  return indices.some((index) => index.columns.includes(VECTOR_COLUMN));
}

/** Build the ANN index on the vector column. */
export async function createVectorIndex(table: Table): Promise<void> {
  await table.createIndex(VECTOR_COLUMN, { config: vectorIndex(), replace: true });
}

/**
 * Nearest chunks by cosine similarity (score `1 − cosine distance`), best first, equal scores by
 * path then start line. Chunks without a vector never match, nor does anything for a zero query
 * (it has no direction). Filters apply before the search, so a selective filter still yields `k`
 * hits. Without an ANN index LanceDB compares every vector (exact). With one, the candidates are
 * refined by exact distance, and when the index yields fewer than `k` (a selective filter can
 * leave its probed partitions short) the search is repeated exactly.
 */
export async function searchVector(
  table: Table,
  vector: Float32Array,
  k: number,
  filter: SearchFilter | undefined,
): Promise<Scored[]> {
  const where = filterWhere(filter);
  if (where.kind === "none" || isZero(vector)) return [];
  const run = (exact: boolean) =>
    topK(k, async (limit) => {
      let query = table
        .query()
        .nearestTo(vector)
        .column(VECTOR_COLUMN)
        .distanceType("cosine")
        .refineFactor(REFINE_FACTOR)
        .select([...CHUNK_COLUMNS, "_distance"])
        .limit(limit);
      if (where.kind === "where") query = query.where(where.sql);
      if (exact) query = query.bypassVectorIndex();
      const rows = (await query.toArray()) as Array<ChunkRow & { _distance: number | null }>;
      return rows.flatMap((row) =>
        row._distance === null || Number.isNaN(row._distance)
          ? []
          : [{ row, score: 1 - row._distance }],
      );
    });
  const hits = await run(false);
  if (hits.length >= k || !(await hasVectorIndex(table))) return hits;
  return run(true);
}

function isZero(vector: Float32Array): boolean {
  return vector.every((x) => x === 0);
}
