import type { Filterable, SearchFilter } from "@engram/core/driver";
import type { StatementCache } from "./connection.js";
import {
  type ChunkRow,
  chunkColumns,
  filterConditions,
  hasPathPrefix,
  tieOrder,
  vectorToBlob,
} from "./rows.js";
import { PLAIN_VECTORS_TABLE, VEC_TABLE } from "./schema.js";

/** sqlite-vec refuses KNN queries with a larger `k`. */
export const MAX_KNN_K = 4096;

/** A chunk row with its cosine distance to the query. */
export type ScoredRow = ChunkRow & { distance: number };

/**
 * The vectors' tables, their lifecycle and queries. The vec0 table exists only while the store has
 * dimensions (`reset({ dims })`); `tier` and `source` are vec0 metadata columns so KNN filters on
 * them while it searches (not after), which keeps `k` hits even under a selective filter. Every
 * vector is also written to the plain table {@link PLAIN_VECTORS_TABLE}: a point lookup there costs
 * ~5–20 µs where vec0 takes ~500 µs (`getVectors`, an exact scan under a path prefix).
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
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${VEC_TABLE} USING vec0(embedding float[${dims}] distance_metric=cosine, tier text, source text)`,
    );
  }

  /** Add the vector of the chunk row `rowid` (with the chunk's path, tier and source). */
  insert(rowid: number | bigint, vector: Float32Array, chunk: Filterable): void {
    this.statement(
      `INSERT INTO ${VEC_TABLE} (rowid, embedding, tier, source) VALUES (?, ?, ?, ?)`,
    ).run(BigInt(rowid), vectorToBlob(vector), chunk.tier, chunk.source);
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
    const row = this.statement(`SELECT count(*) AS n FROM ${VEC_TABLE}`).get() as { n: number };
    return row.n;
  }

  /**
   * The `k` nearest chunks, nearest first, ties by path then start line. Rows whose distance is
   * undefined (a zero vector on either side) are left out.
   *
   * vec0 returns an arbitrary subset of equally distant rows at the cut-off, so one row more than
   * `k` is fetched, and while the `k`-th distance is also the last one fetched the query is
   * repeated with a doubled `k` until the tie group is complete. A path prefix (which vec0 cannot
   * filter during KNN), a `k` above vec0's limit, or a tie group larger than it fall back to an
   * exact scan with `vec_distance_cosine` over the filtered rows of the plain vectors table.
   */
  nearest(query: Float32Array, k: number, filter: SearchFilter | undefined): ScoredRow[] {
    if (k > MAX_KNN_K || hasPathPrefix(filter)) return this.scan(query, k, filter);
    const blob = vectorToBlob(query);
    // One row more than asked shows whether the k-th row's distance continues past the cut-off.
    for (let fetch = Math.min(MAX_KNN_K, k + 1); ; fetch = Math.min(MAX_KNN_K, fetch * 2)) {
      const rows = this.knn(blob, fetch, filter);
      const complete =
        rows.length < fetch || rows[k - 1]?.distance !== rows[rows.length - 1]?.distance;
      if (complete) return rows.slice(0, k);
      if (fetch >= MAX_KNN_K) return this.scan(query, k, filter);
    }
  }

  private knn(blob: Buffer, fetch: number, filter: SearchFilter | undefined): ScoredRow[] {
    const where = filterConditions(filter, "v", false);
    const sql = `
      WITH knn AS MATERIALIZED (
        SELECT v.rowid AS rowid, v.distance AS distance FROM ${VEC_TABLE} AS v
        WHERE v.embedding MATCH ? AND v.k = ? ${where.sql}
      )
      SELECT ${chunkColumns("c")}, knn.distance AS distance
      FROM knn JOIN chunks AS c ON c.rowid = knn.rowid
      WHERE knn.distance IS NOT NULL
      ORDER BY knn.distance, ${tieOrder("c")}`;
    return this.statement(sql).all(blob, fetch, ...where.params) as ScoredRow[];
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
      ORDER BY c.distance, ${tieOrder("c")}
      LIMIT ?`;
    return this.statement(sql).all(vectorToBlob(query), ...where.params, k) as ScoredRow[];
  }

  private statement(sql: string) {
    return this.statements.get(sql);
  }
}
