import { compileFilter, type Filterable, type SearchFilter } from "@engram/core/driver";
import { filterConditions, hasPathPrefix } from "./filters.js";
import { BACKGROUND_LOAD_ROWS, FollowedCopy } from "./followed-copy.js";
import { readMatrix } from "./matrix-load.js";
import {
  blobToVector,
  type ChunkRow,
  chunkColumns,
  chunkRowsByRowid,
  compareRowOrder,
  tieOrder,
  vectorToBlob,
} from "./rows.js";
import { PLAIN_VECTORS_TABLE, VEC_TABLE } from "./schema.js";
import { type SimdScan, simdScan } from "./simd-scan.js";
import type { StatementCache } from "./statements.js";
import type { VectorMatrix } from "./vector-matrix.js";

/** sqlite-vec refuses KNN queries with a larger `k`. */
export const MAX_KNN_K = 4096;

/** A chunk row with its cosine distance to the query. */
export type ScoredRow = ChunkRow & { distance: number };

/**
 * Meta key of a counter every transaction that changes vectors increments. A connection's
 * in-memory copy of the vectors is current while the counter still holds the value it was loaded
 * (or last updated) at.
 */
export const GENERATION_META_KEY = "store-sqlite.vectors-generation";

/** A change to the vectors: added (with its chunk's labels) or, without a vector, removed. */
interface VectorOp {
  rowid: number;
  vector?: Float32Array;
  chunk?: Filterable;
}

/**
 * The vectors' tables, their lifecycle and queries. The vec0 table exists only while the store has
 * dimensions (`reset({ dims })`); `tier` and `source` are vec0 metadata columns so KNN filters on
 * them while it searches (not after), which keeps `k` hits even under a selective filter. Every
 * vector is also written to the plain table {@link PLAIN_VECTORS_TABLE}, which the in-memory copy
 * loads from and rescores its candidates with.
 */
export class VectorIndex {
  readonly #copy: FollowedCopy<VectorMatrix, VectorOp>;
  #searches = 0;

  /**
   * @param cacheBytes Largest in-memory copy (rows × {@link matrixBytesPerRow}) searched from
   *   memory; larger tables, or 0, are scanned by sqlite-vec instead.
   * @param loadAfter Searches answered by sqlite-vec before the in-memory copy is loaded.
   * @param backgroundAbove Vectors above which the copy loads in the background (sqlite-vec
   *   answers meanwhile); a test may lower it.
   */
  constructor(
    private readonly statements: StatementCache,
    private readonly cacheBytes: number,
    private readonly loadAfter = 1,
    backgroundAbove = BACKGROUND_LOAD_ROWS,
  ) {
    this.#copy = new FollowedCopy(
      statements,
      GENERATION_META_KEY,
      (matrix, ops) => {
        for (const { rowid, vector, chunk } of ops) {
          if (vector && chunk) matrix.set(rowid, vector, chunk);
          else matrix.remove(rowid);
        }
        // Grown past the budget: let the next search decide again (sqlite-vec, most likely).
        return matrix.size * matrixBytesPerRow(matrix.dims) <= this.cacheBytes;
      },
      backgroundAbove,
    );
  }

  /** Resolves when no load of the copy runs in the background. */
  settled(): Promise<void> {
    return this.#copy.settled();
  }

  /** Stop a background load (the connection is closing). */
  cancel(): void {
    this.#copy.cancel();
  }

  /** Drop the table (if any) and, when `dims` is not null, create it for `dims` dimensions. */
  recreate(dims: number | null): void {
    this.#copy.reset();
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
    this.#copy.log({
      rowid: Number(rowid),
      vector,
      chunk: { path: chunk.path, tier: chunk.tier, source: chunk.source },
    });
  }

  delete(rowid: number | bigint): void {
    this.statement(`DELETE FROM ${VEC_TABLE} WHERE rowid = ?`).run(BigInt(rowid));
    this.statement(`DELETE FROM ${PLAIN_VECTORS_TABLE} WHERE rowid = ?`).run(BigInt(rowid));
    this.#copy.log({ rowid: Number(rowid) });
  }

  /** Call after the write transaction that inserted, deleted or recreated committed. */
  committed(): void {
    this.#copy.committed();
  }

  /** Call after the write transaction rolled back: its changes never happened. */
  rolledBack(): void {
    this.#copy.rolledBack();
  }

  /**
   * The vectors in memory, loaded or reloaded when another connection changed them since; undefined
   * when they exceed the memory budget. Call inside a read transaction.
   */
  #matrix(dims: number, scan: SimdScan): VectorMatrix | undefined {
    return this.#copy.current(() => {
      const rows = this.statement(`SELECT count(*) AS n FROM ${PLAIN_VECTORS_TABLE}`).get() as {
        n: number;
      };
      if (rows.n * matrixBytesPerRow(dims) > this.cacheBytes) return undefined;
      return { rows: rows.n, steps: readMatrix(this.statements, VEC_TABLE, dims, scan) };
    });
  }

  count(): number {
    const row = this.statement(`SELECT count(*) AS n FROM ${VEC_TABLE}`).get() as { n: number };
    return row.n;
  }

  /**
   * The `k` nearest chunks, nearest first, ties by path then start line. Rows whose distance is
   * undefined (a zero vector on either side) are left out.
   *
   * The in-memory copy answers every filter but a path prefix that few of the nearest rows pass,
   * which goes to the exact scan below. Without the copy (first search, over budget, no USearch):
   * vec0 returns an arbitrary subset of equally distant rows at the cut-off, so one row more than
   * `k` is fetched, and while the `k`-th distance is also the last one fetched the query is
   * repeated with a doubled `k` until the tie group is complete. A path prefix (which vec0 cannot
   * filter during KNN), a `k` above vec0's limit, or a tie group larger than it fall back to an
   * exact scan with `vec_distance_cosine` over the filtered rows of the plain vectors table.
   */
  nearest(query: Float32Array, k: number, filter: SearchFilter | undefined): ScoredRow[] {
    // By default the first search of a connection asks vec0: a one-shot process (`engram search`)
    // would pay more for loading the copy (~0.2 s per 10k vectors) than it could save.
    const scan = this.#searches++ >= this.loadAfter && this.cacheBytes > 0 ? simdScan() : undefined;
    if (scan) {
      // One read transaction: the copy, the vectors it rescores with and the chunk rows agree.
      const found = this.statements.db.transaction(() => {
        const matrix = this.#matrix(query.length, scan);
        return matrix && this.fromMatrix(matrix, query, k, filter);
      })();
      if (found) return found;
    }
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

  /**
   * k-NN from the in-memory vectors; ties at the cut-off ordered like every other search.
   * Undefined when a path prefix turns out too selective for the copy: the scan over the path
   * index answers it faster.
   */
  private fromMatrix(
    matrix: VectorMatrix,
    query: Float32Array,
    k: number,
    filter: SearchFilter | undefined,
  ): ScoredRow[] | undefined {
    const vectorOf = this.statement(
      `SELECT embedding FROM ${PLAIN_VECTORS_TABLE} WHERE rowid = ?`,
    ).pluck();
    const found = matrix.nearest(
      query,
      k,
      compileFilter(filter),
      (rowid) => {
        const blob = vectorOf.get(rowid) as Buffer | undefined;
        return blob && blobToVector(blob);
      },
      hasPathPrefix(filter) ? SELECTIVE_PATH_SHARE : 0,
    );
    if (!found?.length) return found && [];
    // Only the k nearest and rows tied with the k-th need their chunk rows.
    const cut = found[Math.min(k, found.length) - 1]?.distance as number;
    const hits = found.filter((hit) => hit.distance <= cut);
    const distance = new Map(hits.map((hit) => [hit.rowid, hit.distance]));
    return chunkRowsByRowid(
      this.statements,
      hits.map((hit) => hit.rowid),
    )
      .map((row) => ({ ...row, distance: distance.get(row.rowid) as number }))
      .sort((a, b) => a.distance - b.distance || compareRowOrder(a, b))
      .slice(0, k);
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

/**
 * A path prefix that fewer than this share of the copy's nearest rows pass goes to the scan over
 * the path index instead (at 100k chunks: a prefix holding ~1% of them took 167 ms in the copy,
 * widening to every row, and 27 ms by the path index; one holding all of them 15 ms in the copy).
 */
const SELECTIVE_PATH_SHARE = 1 / 16;

/**
 * Memory the in-memory copy takes per vector: its int8 components, the rowid, labels and state,
 * and its entry in the rowid → slot map.
 */
export function matrixBytesPerRow(dims: number): number {
  return dims + 64;
}
