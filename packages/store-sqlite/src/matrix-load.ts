import type { Filterable } from "@engram/core/driver";
import { keysetPages } from "./keyset-pages.js";
import { readChunkLabels, rowidIndex } from "./rows.js";
import { PLAIN_VECTORS_TABLE } from "./schema.js";
import type { SimdScan } from "./simd-scan.js";
import type { StatementCache } from "./statements.js";
import { drain } from "./steps.js";
import { VectorMatrix } from "./vector-matrix.js";

/** A chunk's path, tier and source by rowid (undefined: no such chunk). */
type Labels = (rowid: number) => Filterable | undefined;

/**
 * Read every vector of the vec0 table `table` (with each chunk's path, tier and source from `chunks`)
 * into a new {@link VectorMatrix}. Call inside a read transaction so the copy is one snapshot.
 *
 * The vectors are read from vec0's storage tables, ~1,024 to a blob (~6 µs a row; the plain
 * vectors table, one BLOB a row, takes ~8–14 µs and vec0 row by row ~35 µs). That layout belongs
 * to sqlite-vec 0.1.9 (pinned): it is checked (blob sizes, and that as many rows were found as vec0
 * holds) and anything unexpected falls back to reading the plain vectors table. Vectors go
 * straight into the matrix, so loading needs little more memory than the matrix itself.
 */
export function loadMatrix(
  statements: StatementCache,
  table: string,
  dims: number,
  scan: SimdScan,
): VectorMatrix {
  return drain(readMatrix(statements, table, dims, scan));
}

/** Vectors read per statement from the plain vectors table. */
const PLAIN_PAGE_ROWS = 1000;

/**
 * {@link loadMatrix} a page at a time (one vec0 storage chunk, ~1,024 vectors), yielding between
 * pages, for a load that runs between turns of the event loop.
 * @throws Error when the chunks change between the pages.
 */
export function* readMatrix(
  statements: StatementCache,
  table: string,
  dims: number,
  scan: SimdScan,
): Generator<void, VectorMatrix> {
  const chunks = yield* readChunkLabels(statements);
  const labels: Labels = (rowid) => {
    const i = rowidIndex(chunks.rowids, rowid);
    return i < 0 ? undefined : chunks.labels.chunk(i);
  };
  const expected = statements.get(`SELECT count(*) FROM ${table}_rowids`).pluck().get() as number;
  const fast = new VectorMatrix(dims, scan, expected);
  if ((yield* readStorage(statements, table, fast, labels)) === expected) return fast;
  const slow = new VectorMatrix(dims, scan, expected);
  const plain = statements.get(
    `SELECT rowid, embedding FROM ${PLAIN_VECTORS_TABLE} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  );
  const scratch = new Float32Array(dims);
  for (const rows of keysetPages<[number, Buffer]>(plain, PLAIN_PAGE_ROWS)) {
    for (const [rowid, blob] of rows) add(slow, labels, rowid, floats(blob, 0, scratch));
    yield;
  }
  return slow;
}

/**
 * vec0's storage: `<table>_chunks` (per chunk: `size` slots, a `validity` bitmap and the slots'
 * int64 `rowids`) and `<table>_vector_chunks00` (per chunk: `size × dims` float32s). Returns how
 * many vectors it read, or -1 when the tables or blobs do not look like that.
 */
function* readStorage(
  statements: StatementCache,
  table: string,
  matrix: VectorMatrix,
  labels: Labels,
): Generator<void, number> {
  const dims = matrix.dims;
  const scratch = new Float32Array(dims);
  try {
    const chunks = statements
      .get(`SELECT chunk_id, size, validity, rowids FROM ${table}_chunks`)
      .raw()
      .all() as Array<[number, number, Buffer, Buffer]>;
    const vectorsOf = statements
      .get(`SELECT vectors FROM ${table}_vector_chunks00 WHERE rowid = ?`)
      .pluck();
    let found = 0;
    for (const [chunkId, size, validity, rowids] of chunks) {
      const blob = vectorsOf.get(chunkId) as Buffer | undefined;
      if (!blob || validity.length * 8 < size || rowids.length !== size * 8) return -1;
      if (blob.length !== size * dims * 4) return -1;
      for (let slot = 0; slot < size; slot++) {
        if (((validity[slot >> 3] as number) & (1 << (slot & 7))) === 0) continue;
        const rowid = Number(rowids.readBigInt64LE(slot * 8));
        add(matrix, labels, rowid, floats(blob, slot * dims * 4, scratch));
        found++;
      }
      yield;
    }
    return found;
  } catch {
    return -1;
  }
}

/** Add a vector whose chunk row exists (searches return chunk rows; an orphan could not be). */
function add(matrix: VectorMatrix, labels: Labels, rowid: number, vector: Float32Array): void {
  const label = labels(rowid);
  if (label) matrix.set(rowid, vector, label);
}

/** Fill `out` with the float32s of `blob` from byte `offset` (a Buffer may be unaligned). */
function floats(blob: Buffer, offset: number, out: Float32Array): Float32Array {
  new Uint8Array(out.buffer).set(blob.subarray(offset, offset + out.length * 4));
  return out;
}
