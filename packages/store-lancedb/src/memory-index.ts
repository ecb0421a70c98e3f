import { batches, type IndexedChunk, type StoredChunk } from "@engram/core/driver";
import type { Table } from "@lancedb/lancedb";
import type { Table as ArrowTable, RecordBatch } from "apache-arrow";
import {
  CHUNK_COLUMN,
  type ChunkRow,
  TERMS_COLUMN,
  toStoredChunk,
  VECTOR_COLUMN,
} from "./schema.js";
import { isIn } from "./sql.js";
import type { ChunksShape } from "./vectors.js";

/**
 * Rows per page of a scan (~1 MB of Arrow data at 384 dimensions). LanceDB reads ahead a few
 * pages: at 100,000 chunks a process that loaded a copy through pages of 256 sat at ~1.1 GB of
 * RSS, through pages of 1,024 at ~1.27 GB (128: no lower, and more CPU).
 */
const PAGE_ROWS = 256;

/** Ids per `IN (…)` list. */
const IDS_PER_QUERY = 1000;

/** What {@link ScannedRows} keeps of a chunk: its path, stored JSON and vector (unit length). */
interface Row {
  path: string;
  chunk: string;
  vector: Float32Array | null;
}

/**
 * What core's `withMemoryIndex` reads to keep a copy of the index in a long-lived process's
 * memory (`scanChunks`, `getChunksById`, `getVectors`). The copy answers searches from RAM but
 * reads its hits' chunks and its candidates' exact vectors back by id, and a LanceDB query costs
 * ~2–7 ms of CPU however few rows it returns: read from the table, a hybrid search made five or
 * six (~40 ms at 10,000 chunks, where LanceDB's own two searches took ~15 ms). So the rows of
 * the last complete scan are kept here too, with this store's writes since, and ids not kept are
 * read from the table. Only a process that scans (a long-lived one) keeps any. An id names a
 * path, line range and text, so a kept row stays what the table holds under its id.
 */
export class ScannedRows {
  #rows: Map<string, Row> | undefined;
  /**
   * Writes and resets seen so far: a scan keeps its rows only if none came while it ran (its
   * query reads one table version, which a write made during it is not part of).
   */
  #changes = 0;

  /**
   * Every chunk with its analysed terms (the `terms` column split on single spaces) and vector (at
   * unit length, as stored: the copy ranks by cosine, which scale leaves alone), a page at a time
   * from one query (one table version throughout; LanceDB reads ahead only as pages are taken).
   * The rows are kept once the last page is taken; the ones kept before go at the start.
   */
  async *scan(chunks: Table, shape: ChunksShape): AsyncIterable<IndexedChunk[]> {
    this.#rows = undefined;
    const changes = this.#changes;
    const rows = new Map<string, Row>();
    const columns = [CHUNK_COLUMN, TERMS_COLUMN, ...(await vectorColumn(chunks, shape))];
    const query = chunks.query().select(columns);
    // `execute` takes the page size (the query's public iterator does not).
    type Paged = { execute(options: { maxBatchLength: number }): AsyncIterable<RecordBatch> };
    for await (const batch of (query as unknown as Paged).execute({ maxBatchLength: PAGE_ROWS })) {
      const terms = batch.getChild(TERMS_COLUMN);
      yield Array.from({ length: batch.numRows }, (_, i) => {
        const [row, stored] = rowAt(batch, i);
        rows.set(stored.id, row);
        const text = terms?.get(i) as string;
        return { ...stored, terms: text ? text.split(" ") : [], embedding: row.vector };
      });
    }
    if (this.#changes === changes) this.#rows = rows;
  }

  /** After a write: the chunks of `removed` paths go, `written` come (kept only after a scan). */
  written(removed: readonly string[], written: readonly ChunkRow[]): void {
    this.#changes++;
    const rows = this.#rows;
    if (!rows) return;
    const paths = new Set(removed);
    for (const [id, row] of rows) if (paths.has(row.path)) rows.delete(id);
    for (const { id, path, chunk, vector } of written) {
      rows.set(id, { path, chunk, vector: vector ? Float32Array.from(vector) : null });
    }
  }

  /** Forget every row (a reset, or a write that failed part-way). */
  clear(): void {
    this.#changes++;
    this.#rows = undefined;
  }

  /** The stored chunks with these ids (absent ids are left out). */
  async chunks(chunks: Table, shape: ChunksShape, ids: readonly string[]) {
    return (await this.#get(chunks, shape, ids)).map(([, row]) => toStoredChunk(row));
  }

  /** The vectors of these chunk ids, at unit length as stored (absent: no vector). */
  async vectors(chunks: Table, shape: ChunksShape, ids: readonly string[]) {
    const out = new Map<string, Float32Array>();
    for (const [id, row] of await this.#get(chunks, shape, ids)) {
      if (row.vector) out.set(id, row.vector);
    }
    return out;
  }

  /** The rows of these ids: kept, or read from the table. */
  async #get(chunks: Table, shape: ChunksShape, ids: readonly string[]) {
    const found: Array<[string, Row]> = [];
    const missing: string[] = [];
    for (const id of ids) {
      const row = this.#rows?.get(id);
      if (row) found.push([id, row]);
      else missing.push(id);
    }
    const columns = missing.length ? [CHUNK_COLUMN, ...(await vectorColumn(chunks, shape))] : [];
    for (const some of batches(missing, IDS_PER_QUERY)) {
      // (`AND vector IS NOT NULL` would make LanceDB read every vector: 4× the CPU.)
      const result = await chunks.query().where(isIn("id", some)).select(columns).toArrow();
      for (let i = 0; i < result.numRows; i++) {
        const [row, stored] = rowAt(result, i);
        found.push([stored.id, row]);
      }
    }
    return found;
  }
}

/** Row `i` of a result with the chunk and (optionally) vector columns, and its stored chunk. */
function rowAt(result: RecordBatch | ArrowTable, i: number): [Row, StoredChunk] {
  const chunk = result.getChild(CHUNK_COLUMN)?.get(i) as string;
  const stored = toStoredChunk({ chunk });
  const value = result.getChild(VECTOR_COLUMN)?.get(i) as { toArray(): Float32Array } | null;
  // A copy: the view would keep the whole result's memory alive.
  const vector = value?.toArray().slice() ?? null;
  return [{ path: stored.path, chunk, vector }, stored];
}

async function vectorColumn(chunks: Table, shape: ChunksShape): Promise<string[]> {
  return (await shape.get(chunks)).dims === null ? [] : [VECTOR_COLUMN];
}
