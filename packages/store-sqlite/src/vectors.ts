import { compareChunkOrder, type Filterable, type SearchFilter } from "@engram/core/driver";
import type { StatementCache } from "./connection.js";
import {
  type ChunkRow,
  chunkColumns,
  filterConditions,
  toUnitLength,
  vectorToBlob,
} from "./rows.js";
import { PLAIN_VECTORS_TABLE, VEC_TABLE, vecColumns } from "./schema.js";

/** sqlite-vec refuses KNN queries with a larger `k`. */
export const MAX_KNN_K = 4096;

/** A chunk row with its cosine distance to the query. */
export type ScoredRow = ChunkRow & { distance: number };

/**
 * The vectors' tables, their lifecycle and queries. Every vector is written as it is to the plain
 * table {@link PLAIN_VECTORS_TABLE} (a point lookup there costs ~5–20 µs where vec0 takes ~500 µs:
 * `getVectors`, rescoring, an exact scan under a path prefix) and, scaled to unit length, to the
 * vec0 table, which finds candidates by Euclidean distance: for unit vectors
 * `‖a − b‖² / 2 = 1 − cos(a, b)`, and sqlite-vec's L2 scan is ~30 % cheaper than its cosine scan
 * (100k × 384: ~63 ms instead of ~87 ms of CPU, most of a new process's first vector search). The
 * vec0 table exists only while the store has dimensions (`reset({ dims })`); `tier` and `source`
 * are vec0 metadata columns so KNN filters on them while it searches (not after), which keeps `k`
 * hits even under a selective filter. A zero vector has no direction and is left out of vec0.
 */
export class VectorIndex {
  constructor(private readonly statements: StatementCache) {}

  /** Drop the table (if any) and, when `dims` is not null, create it for `dims` dimensions. */
  recreate(dims: number | null): void {
    this.statements.forget(VEC_TABLE);
    this.statements.db.exec(`DROP TABLE IF EXISTS ${VEC_TABLE}`);
    this.statement(`DELETE FROM ${PLAIN_VECTORS_TABLE}`).run();
    if (dims !== null) this.create(dims);
  }

  /** Create the table if it is missing. */
  create(dims: number): void {
    this.statements.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${VEC_TABLE} USING vec0(${vecColumns(dims)})`,
    );
  }

  /** Add the vector of the chunk row `rowid` (with the chunk's path, tier and source). */
  insert(rowid: number | bigint, vector: Float32Array, chunk: Filterable): void {
    const unit = toUnitLength(vector);
    if (unit) {
      this.statement(
        `INSERT INTO ${VEC_TABLE} (rowid, embedding, tier, source) VALUES (?, ?, ?, ?)`,
      ).run(BigInt(rowid), vectorToBlob(unit), chunk.tier, chunk.source);
    }
    this.statement(`INSERT INTO ${PLAIN_VECTORS_TABLE} (rowid, embedding) VALUES (?, ?)`).run(
      BigInt(rowid),
      vectorToBlob(vector),
    );
  }

  delete(rowid: number | bigint): void {
    this.statement(`DELETE FROM ${VEC_TABLE} WHERE rowid = ?`).run(BigInt(rowid));
    this.statement(`DELETE FROM ${PLAIN_VECTORS_TABLE} WHERE rowid = ?`).run(BigInt(rowid));
  }

  count(): number {
    const row = this.statement(`SELECT count(*) AS n FROM ${PLAIN_VECTORS_TABLE}`).get() as {
      n: number;
    };
    return row.n;
  }

  /**
   * The `k` nearest chunks by cosine similarity, nearest first, ties by path then start line.
   * Rows whose distance is undefined (a zero vector on either side) are left out.
   *
   * vec0 finds the `fetch` nearest unit vectors (`k` + {@link KNN_EXTRA_ROWS} at first); each is
   * rescored exactly with `vec_distance_cosine` against its vector in the plain table (the scores are
   * sqlite-vec's cosine distances, as before the scan changed). A vec0 distance is within
   * {@link L2_SLACK} of the exact one once turned into a cosine distance, so when the last row
   * fetched is farther than the `k`-th exact distance by more than that, no row left out can be
   * as near (nor tie); otherwise the query repeats with four times the rows. A path prefix (which vec0
   * cannot filter during KNN), a `k` above vec0's limit, or more rows than it returns fall back to
   * an exact scan with `vec_distance_cosine` over the filtered rows of the plain vectors table.
   */
  nearest(query: Float32Array, k: number, filter: SearchFilter | undefined): ScoredRow[] {
    if (k > MAX_KNN_K || filter?.pathPrefix) return this.scan(query, k, filter);
    const unit = toUnitLength(query);
    if (!unit) return []; // a zero query has no cosine similarity
    for (
      let fetch = Math.min(MAX_KNN_K, k + KNN_EXTRA_ROWS);
      ;
      fetch = Math.min(MAX_KNN_K, fetch * 4)
    ) {
      const { rows, found, farthest } = this.knn(unit, query, fetch, filter);
      const kth = rows[k - 1]?.distance;
      if (found < fetch || (kth !== undefined && farthest - L2_SLACK > kth)) {
        return rows.slice(0, k);
      }
      if (fetch >= MAX_KNN_K) return this.scan(query, k, filter);
    }
  }

  /**
   * The `fetch` nearest rows by vec0's Euclidean distance between unit vectors, rescored: the
   * rows with their exact cosine distance (in the contract's order), how many vec0 returned, and
   * the farthest of them as a cosine distance.
   */
  private knn(
    unit: Float32Array,
    query: Float32Array,
    fetch: number,
    filter: SearchFilter | undefined,
  ): { rows: ScoredRow[]; found: number; farthest: number } {
    const where = filterConditions(filter, "v", false);
    const sql = `
      WITH knn AS MATERIALIZED (
        SELECT v.rowid AS rowid, v.distance AS l2 FROM ${VEC_TABLE} AS v
        WHERE v.embedding MATCH ? AND v.k = ? ${where.sql}
      )
      SELECT ${chunkColumns("c")}, knn.l2 AS l2,
        vec_distance_cosine(p.embedding, ?) AS distance
      FROM knn LEFT JOIN chunks AS c ON c.rowid = knn.rowid
        LEFT JOIN ${PLAIN_VECTORS_TABLE} AS p ON p.rowid = knn.rowid`;
    const all = this.statement(sql).all(
      vectorToBlob(unit),
      fetch,
      ...where.params,
      vectorToBlob(query),
    ) as Array<ScoredRow & { l2: number }>;
    let farthest = Number.NEGATIVE_INFINITY;
    for (const row of all) farthest = Math.max(farthest, (row.l2 * row.l2) / 2);
    const rows = all
      .filter((row) => row.id != null && row.distance != null)
      .sort((a, b) => a.distance - b.distance || compareChunkOrder(a, b));
    return { rows, found: all.length, farthest };
  }

  private scan(query: Float32Array, k: number, filter: SearchFilter | undefined): ScoredRow[] {
    const where = filterConditions(filter, "c");
    // CROSS JOIN keeps `chunks` outer: filter by path (index) first, then point lookups in the
    // plain vectors table (~5 µs each; vec0's take 20–500 µs).
    const sql = `
      SELECT * FROM (
        SELECT ${chunkColumns("c")}, vec_distance_cosine(v.embedding, ?) AS distance
        FROM chunks AS c CROSS JOIN ${PLAIN_VECTORS_TABLE} AS v ON v.rowid = c.rowid
        WHERE 1 ${where.sql}
      ) AS c
      WHERE c.distance IS NOT NULL
      ORDER BY c.distance, c.path, c.startLine, c.endLine, c.id
      LIMIT ?`;
    return this.statement(sql).all(vectorToBlob(query), ...where.params, k) as ScoredRow[];
  }

  private statement(sql: string) {
    return this.statements.get(sql);
  }
}

/**
 * Rows vec0 is asked for beyond `k`. Each KNN query scans every vector whatever it returns, so a
 * repeat costs a whole scan; but vec0 keeps its best rows by selection, which costs more the more
 * rows are asked for (a new process, 100,000 × 384: ~78 ms for 5 rows, ~95 ms for 80). With one
 * extra row, 1 query in 4–7 repeated (200 queries at k = 24, USE-lite vectors of 5,000 chunks and
 * the synthetic 100,000 of `engram-bench perf`); with four, none did.
 */
export const KNN_EXTRA_ROWS = 16;

/**
 * How far vec0's `‖a − b‖² / 2` between float32 unit vectors may be from the exact cosine
 * distance of the original vectors (float32 rounding of the scaled components and of vec0's
 * sums: ~1e-6 for 384 dimensions, allowed for with a wide margin).
 */
export const L2_SLACK = 1e-4;
