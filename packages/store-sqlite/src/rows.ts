import { compareChunkOrder, type FileRecord, type StoredChunk } from "@engram/core/driver";
import { SlotLabels } from "./slot-labels.js";
import type { StatementCache } from "./statements.js";

/** A `files` row. */
export interface FileRow {
  path: string;
  source: string;
  tier: string;
  hash: string;
  mtime_ms: number;
  size: number;
}

/** A `chunks` row (the columns every chunk query selects). */
export interface ChunkRow {
  rowid: number;
  id: string;
  path: string;
  source: string;
  tier: string;
  start_line: number;
  end_line: number;
  headings: string;
  text: string;
  hash: string;
}

/** The columns of {@link ChunkRow}, qualified by `alias`. */
export function chunkColumns(alias: string): string {
  return [
    "rowid",
    "id",
    "path",
    "source",
    "tier",
    "start_line",
    "end_line",
    "headings",
    "text",
    "hash",
  ]
    .map((column) => `${alias}.${column} AS ${column}`)
    .join(", ");
}

/** The chunk rows with these rowids, in no particular order (missing rowids are left out). */
export function chunkRowsByRowid(
  statements: StatementCache,
  rowids: readonly (number | bigint)[],
): ChunkRow[] {
  if (!rowids.length) return [];
  return statements
    .get(
      `SELECT ${chunkColumns("c")} FROM chunks AS c WHERE c.rowid IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(rowids.map(Number))) as ChunkRow[];
}

/** Tie order shared by both searches after the score: path, then start line (then id). */
export function tieOrder(alias: string): string {
  return `${alias}.path, ${alias}.start_line, ${alias}.end_line, ${alias}.id`;
}

/** {@link tieOrder} on rows read into JS: the contract's order (`compareChunkOrder`). */
export function compareRowOrder(a: ChunkRow, b: ChunkRow): number {
  return compareChunkOrder(
    { path: a.path, startLine: a.start_line, endLine: a.end_line, id: a.id },
    { path: b.path, startLine: b.start_line, endLine: b.end_line, id: b.id },
  );
}

export function toFileRecord(row: FileRow): FileRecord {
  return {
    path: row.path,
    source: row.source,
    tier: row.tier as FileRecord["tier"],
    hash: row.hash,
    mtimeMs: row.mtime_ms,
    size: row.size,
  };
}

export function toStoredChunk(row: ChunkRow): StoredChunk {
  return {
    id: row.id,
    path: row.path,
    source: row.source,
    tier: row.tier as StoredChunk["tier"],
    startLine: row.start_line,
    endLine: row.end_line,
    headings: JSON.parse(row.headings) as string[],
    text: row.text,
    hash: row.hash,
  };
}

/** A vector as a little-endian float32 BLOB (the layout sqlite-vec reads), without copying. */
export function vectorToBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A float32 BLOB as a new Float32Array (copied, so alignment of the Buffer never matters). */
export function blobToVector(blob: Buffer): Float32Array {
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/** Every chunk's labels: `labels` slot `i` belongs to chunk `rowids[i]`, rowids ascending. */
export interface ChunkLabels {
  rowids: Float64Array;
  labels: SlotLabels;
}

/** Chunks read per statement by {@link readChunkLabels}. */
const LABEL_PAGE_ROWS = 2000;

/** The `chunks_by_path` index's columns, in its order (then the rowid). */
const BY_PATH = "path, start_line, tier, source";

/**
 * Every chunk's path, tier and source, for the in-memory copies' filters. Read from the
 * `chunks_by_path` index, which covers them (a scan of `chunks` would read every chunk's text),
 * and kept as small codes (no object per chunk). Read a page at a time, yielding after each page,
 * for a load that runs between turns of the event loop (`drain` runs it at once). Call inside a
 * read transaction for one snapshot.
 * @throws Error when the chunks change between the pages.
 */
export function* readChunkLabels(statements: StatementCache): Generator<void, ChunkLabels> {
  const count = statements.get("SELECT count(*) FROM chunks").pluck().get() as number;
  const byPath = new SlotLabels(Math.max(1, count));
  const rowidsByPath = new Float64Array(count);
  let n = 0;
  const first = statements
    .get(`SELECT rowid, ${BY_PATH} FROM chunks ORDER BY ${BY_PATH}, rowid LIMIT ?`)
    .raw();
  const after = statements
    .get(
      `SELECT rowid, ${BY_PATH} FROM chunks WHERE (${BY_PATH}, rowid) > (?, ?, ?, ?, ?)
       ORDER BY ${BY_PATH}, rowid LIMIT ?`,
    )
    .raw();
  type Row = [rowid: number, path: string, startLine: number, tier: string, source: string];
  let page = first.all(LABEL_PAGE_ROWS) as Row[];
  while (page.length) {
    for (const [rowid, path, , tier, source] of page) {
      if (n === count) throw new Error("the chunks changed between the reads");
      byPath.set(n, { path, tier, source });
      rowidsByPath[n++] = rowid;
    }
    yield;
    const [rowid, path, startLine, tier, source] = page[page.length - 1] as Row;
    page = after.all(path, startLine, tier, source, rowid, LABEL_PAGE_ROWS) as Row[];
  }
  const order = new Uint32Array(n).map((_, i) => i);
  order.sort((a, b) => (rowidsByPath[a] as number) - (rowidsByPath[b] as number));
  return {
    rowids: Float64Array.from(order, (i) => rowidsByPath[i] as number),
    labels: byPath.reordered(order),
  };
}

/** Position of `rowid` in the ascending `rowids`, or -1. */
export function rowidIndex(rowids: Float64Array, rowid: number): number {
  let low = 0;
  let high = rowids.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const value = rowids[mid] as number;
    if (value === rowid) return mid;
    if (value < rowid) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
