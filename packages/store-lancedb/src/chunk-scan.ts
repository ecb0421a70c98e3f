import { batches, type IndexedChunk, type StoredChunk } from "@engram/core/driver";
import type { Table } from "@lancedb/lancedb";
import type { Table as ArrowTable, RecordBatch } from "apache-arrow";
import { CHUNK_COLUMN, TERMS_COLUMN, toStoredChunk, VECTOR_COLUMN } from "./schema.js";
import { isIn } from "./sql.js";
import type { ChunksShape } from "./vectors.js";

// What core's `withMemoryIndex` reads to keep a copy of the index in a long-lived process's
// memory: one scan of every chunk, then, rarely, chunks and vectors by id. A LanceDB query costs
// ~2–7 ms of CPU however few rows it returns, so the store sets `memoryIndexKeepsChunks` and the
// copy keeps what the scan gave it instead of reading its hits back (five or six reads a hybrid
// search: ~40 ms at 10,000 chunks, where LanceDB's own two searches took ~15 ms).

/**
 * Rows per page of a scan (~1 MB of Arrow data at 384 dimensions). LanceDB reads ahead a few
 * pages: at 100,000 chunks a process that loaded a copy through pages of 256 sat at ~1.1 GB of
 * RSS, through pages of 1,024 at ~1.27 GB (128: no lower, and more CPU).
 */
const PAGE_ROWS = 256;

/** Ids per `IN (…)` list. */
const IDS_PER_QUERY = 1000;

/**
 * Every chunk, whole, with its analysed terms (the `terms` column split on single spaces) and
 * vector (at unit length, as stored: the copy ranks by cosine, which scale leaves alone), a page
 * at a time from one query (one table version throughout; LanceDB reads ahead only as pages are
 * taken).
 */
export async function* scanChunks(
  chunks: Table,
  shape: ChunksShape,
): AsyncIterable<IndexedChunk[]> {
  const columns = [CHUNK_COLUMN, TERMS_COLUMN, ...(await vectorColumn(chunks, shape))];
  const query = chunks.query().select(columns);
  // `execute` takes the page size (the query's public iterator does not).
  type Paged = { execute(options: { maxBatchLength: number }): AsyncIterable<RecordBatch> };
  for await (const batch of (query as unknown as Paged).execute({ maxBatchLength: PAGE_ROWS })) {
    const terms = batch.getChild(TERMS_COLUMN);
    yield Array.from({ length: batch.numRows }, (_, i) => {
      const [stored, embedding] = rowAt(batch, i);
      const text = terms?.get(i) as string;
      return { ...stored, terms: text ? text.split(" ") : [], embedding };
    });
  }
}

/**
 * The chunks with these ids (absent ids left out), each with its vector at unit length as stored
 * when `vectors` is asked for (else null: the column is not read).
 */
export async function readById(
  chunks: Table,
  shape: ChunksShape,
  ids: readonly string[],
  vectors: boolean,
): Promise<Array<[StoredChunk, Float32Array | null]>> {
  const found: Array<[StoredChunk, Float32Array | null]> = [];
  if (!ids.length) return found;
  const columns = [CHUNK_COLUMN, ...(vectors ? await vectorColumn(chunks, shape) : [])];
  for (const some of batches(ids, IDS_PER_QUERY)) {
    // (`AND vector IS NOT NULL` would make LanceDB read every vector: 4× the CPU.)
    const result = await chunks.query().where(isIn("id", some)).select(columns).toArrow();
    for (let i = 0; i < result.numRows; i++) found.push(rowAt(result, i));
  }
  return found;
}

/** Row `i` of a result with the chunk and (optionally) vector columns. */
function rowAt(result: RecordBatch | ArrowTable, i: number): [StoredChunk, Float32Array | null] {
  const stored = toStoredChunk({ chunk: result.getChild(CHUNK_COLUMN)?.get(i) as string });
  const value = result.getChild(VECTOR_COLUMN)?.get(i) as { toArray(): Float32Array } | null;
  // A copy: the view would keep the whole result's memory alive.
  return [stored, value?.toArray().slice() ?? null];
}

async function vectorColumn(chunks: Table, shape: ChunksShape): Promise<string[]> {
  return (await shape.get(chunks)).dims === null ? [] : [VECTOR_COLUMN];
}
