import type { SearchFilter, StoreHit } from "@engram/core/driver";
import { Index, type Table } from "@lancedb/lancedb";
import { CHUNK_COLUMN, dimsOf, hitsOf, unitLength, VECTOR_COLUMN } from "./schema.js";
import { planFilter } from "./sql.js";

// LanceDB 0.37 warns on stderr whenever it reads a vector index's statistics (as `listIndices`
// does) unless this is set; "false" opts into its announced default (centroids left out of the
// statistics, which the store never reads). An explicit setting by the user wins.
process.env.LANCE_INCLUDE_VECTOR_CENTROIDS ??= "false";

/**
 * With the quantised index, fetch this many times `limit` candidates by their quantised distance
 * and re-rank them by their exact distance, read from the data files (README: recall@25 1.000 at
 * 100,000 × 384 against the exact search).
 */
const REFINE_FACTOR = 5;

/** Bits per dimension of the quantised index's codes: 384 dimensions take 192 bytes, not 1,536. */
const QUANTISED_BITS = 4;

/**
 * Which vector index the chunks table has (see {@link vectorIndex}); `other` is one this store no
 * longer builds (HNSW, up to version 0.1), searched as an approximate one and replaced at the next
 * vector-index build.
 */
export type VectorIndexKind = "flat" | "quantised" | "other" | "none";

/**
 * The vector index of a kind.
 *
 * `flat`: IVF_FLAT with a single partition: every vector, unquantised, in one list the query
 * scans whole, so results are exact — but LanceDB keeps an index in its cache, where an unindexed
 * search reads and decodes the vector column from the data files on every query (10,000 × 384
 * floats: ~10 ms a query, ~3 ms from the index). It builds in about the time it takes to copy the
 * vectors.
 *
 * `quantised`: IVF_RQ with a single partition: every vector as a RaBitQ code of
 * {@link QUANTISED_BITS} bits per dimension, scanned whole, the best candidates re-ranked by exact
 * distance ({@link REFINE_FACTOR}). A seventh of the flat index's bytes, so it takes far less of
 * the folder (which otherwise holds every vector twice: the data and the flat index) and of the
 * index cache, and scans faster at size; approximate, but at 4 bits the refined results matched
 * the exact ones in every measured query (README), where HNSW over scalar-quantised vectors found
 * 59 % and IVF-PQ 34 %.
 */
export function vectorIndex(kind: "flat" | "quantised"): Index {
  return kind === "flat"
    ? Index.ivfFlat({ distanceType: DISTANCE_TYPE, numPartitions: 1 })
    : Index.ivfRq({ distanceType: DISTANCE_TYPE, numPartitions: 1, numBits: QUANTISED_BITS });
}

/**
 * Vectors are stored at unit length (`unitLength`) and queries scaled alike, so the dot product is
 * the cosine similarity; LanceDB's distance is then `1 − dot`, and the scan skips computing
 * norms (measured at 10,000 × 384 in one segment: ~0.35 ms less CPU a query than cosine).
 */
const DISTANCE_TYPE = "dot";

/** The kind of vector index `table` has. */
export async function vectorIndexKind(table: Table): Promise<VectorIndexKind> {
  const index = (await table.listIndices()).find((i) => i.columns.includes(VECTOR_COLUMN));
  if (!index) return "none";
  // listIndices names them "IvfFlat" and "IvfRq" (indexStats says "IVF_FLAT", "IVF_RQ").
  if (/^ivf_?flat$/i.test(index.indexType)) return "flat";
  return /^ivf_?rq$/i.test(index.indexType) ? "quantised" : "other";
}

/**
 * How many segments the vector index of `table` has (each optimize adds the rows written since as
 * a segment of its own), counting rows outside the index as one more; 0 without an index.
 */
export async function vectorIndexSegments(table: Table): Promise<number> {
  const index = (await table.listIndices()).find((i) => i.columns.includes(VECTOR_COLUMN));
  const stats = index && (await table.indexStats(index.name));
  if (!stats) return 0;
  return (stats.numIndices ?? 1) + (stats.numUnindexedRows > 0 ? 1 : 0);
}

/** What searches need to know of the chunks table at one version (see {@link ChunksShape}). */
export interface ShapeSnapshot {
  dims: number | null;
  index: VectorIndexKind;
  /** How many rows the `where` clause leaves out (counted once per version). */
  outside(where: string): Promise<number>;
}

/**
 * What searches need to know of the chunks table — its dimensions, its vector index, how many
 * rows a filter leaves out — read once per table version: reading the schema costs ~0.3 ms and
 * counting rows ~0.7 ms, asking for the version ~0.02 ms, and `version()` honours the connection's
 * read consistency interval exactly as a query does.
 *
 * Calls made while a version check is under way, or before the event loop turns once it is done,
 * share it: a hybrid search asks three times in a row (the dimensions, then each side for its
 * filter), and in a search a check cost ~0.4 ms of CPU (measured at 10,000 chunks, against
 * ~0.03 ms alone: it waits for the threads the queries keep busy). A call may so get a check that
 * began just before it: the shape is then at most the commits of that moment behind, as it can
 * be anyway between a check and the query it serves, and the query itself always reads the latest
 * version.
 */
export class ChunksShape {
  #cached: (ShapeSnapshot & { version: number; table: Table }) | undefined;
  /** The check under way, or done and not yet past a turn of the event loop. */
  #shared: { table: Table; snapshot: Promise<ShapeSnapshot> } | undefined;

  /** The table's shape at its latest version. */
  get(table: Table): Promise<ShapeSnapshot> {
    if (this.#shared?.table === table) return this.#shared.snapshot;
    const shared = { table, snapshot: this.#check(table) };
    const expire = () => {
      if (this.#shared === shared) this.#shared = undefined;
    };
    shared.snapshot.then(
      () => setImmediate(expire),
      () => expire(),
    );
    this.#shared = shared;
    return shared.snapshot;
  }

  async #check(table: Table): Promise<ShapeSnapshot> {
    const version = await table.version();
    const cached = this.#cached;
    if (cached?.table === table && cached.version === version) return cached;
    const dims = dimsOf(await table.schema());
    const index = dims === null ? "none" : await vectorIndexKind(table);
    const counts = new Map<string, Promise<number>>();
    const outside = (where: string) => {
      let count = counts.get(where);
      if (!count) {
        count = table.countRows(`NOT (${where})`);
        counts.set(where, count);
        count.catch(() => counts.delete(where));
      }
      return count;
    };
    this.#cached = { table, version, dims, index, outside };
    return this.#cached;
  }
}

/**
 * The `limit` nearest chunks by cosine similarity (the dot product of unit vectors: score
 * `1 − distance`), best first.
 * Chunks without a vector never match, nor does anything for a zero query (it has no direction).
 * Exact unless the table has a quantised index; then the candidates are refined by exact
 * distance, and when the index yields fewer than `limit` (an approximate index can come back
 * short under a selective filter) the search is repeated exactly.
 *
 * A filter applies before the search, so a selective filter still yields `limit` hits; the usual
 * one is applied here instead (see `planFilter`).
 */
export async function searchVector(
  table: Table,
  shape: ChunksShape,
  vector: Float32Array,
  limit: number,
  filter: SearchFilter | undefined,
): Promise<StoreHit[]> {
  const unit = unitLength(vector);
  if (!unit) return [];
  const { index, outside } = await shape.get(table);
  const plan = await planFilter(filter, limit, outside);
  if (!plan) return [];
  const approximate = index === "quantised" || index === "other";
  const run = async (exact: boolean) => {
    let query = table
      .query()
      .nearestTo(unit)
      .column(VECTOR_COLUMN)
      .distanceType(DISTANCE_TYPE)
      .select([CHUNK_COLUMN, DISTANCE_COLUMN])
      .limit(limit + plan.extra);
    if (plan.where) query = query.where(plan.where);
    if (approximate) {
      query = exact ? query.bypassVectorIndex() : query.refineFactor(REFINE_FACTOR);
    }
    const hits = hitsOf(await query.toArrow(), DISTANCE_COLUMN, (distance) =>
      distance === null || Number.isNaN(distance) ? undefined : 1 - distance,
    );
    const { keep } = plan;
    return keep ? hits.filter((hit) => keep(hit.chunk)).slice(0, limit) : hits;
  };
  const hits = await run(false);
  return hits.length < limit && approximate ? run(true) : hits;
}

/** The column LanceDB gives a vector hit's distance in. */
const DISTANCE_COLUMN = "_distance";
