import {
  type ChunkLocation,
  type ChunkRecord,
  compareChunkOrder,
  type FileRecord,
  type StoredChunk,
  type Tier,
} from "@engram/core/driver";

/** A `files` row as read from or written to LanceDB (a type alias, so LanceDB takes it as a record). */
export type FileRow = {
  path: string;
  source: string;
  tier: string;
  hash: string;
  mtime_ms: number;
  size: number;
};

/** The stored columns of a `chunks` row (what searches and reads select). */
export type ChunkRow = {
  id: string;
  path: string;
  source: string;
  tier: string;
  start_line: number;
  end_line: number;
  headings: string;
  text: string;
  hash: string;
};

/** A `chunks` row as written: the stored columns, the joined terms and, with dims, the vector. */
export type ChunkWriteRow = ChunkRow & { terms: string; vector?: number[] | null };

/** A file record as a `files` row. */
export function toFileRow(file: FileRecord): FileRow {
  return {
    path: file.path,
    source: file.source,
    tier: file.tier,
    hash: file.hash,
    mtime_ms: file.mtimeMs,
    size: file.size,
  };
}

/** A `files` row (as LanceDB returns it) as a file record. */
export function toFileRecord(row: FileRow): FileRecord {
  return {
    path: row.path,
    source: row.source,
    tier: row.tier as Tier,
    hash: row.hash,
    mtimeMs: Number(row.mtime_ms),
    size: Number(row.size),
  };
}

/**
 * A chunk as a row. The terms are joined by single spaces for the whitespace tokenizer: core's
 * analyzer guarantees a term holds only letters, marks and numbers, so the tokenizer gives back
 * exactly the terms written. `withVector` is false while the table has no vector column.
 */
export function toChunkRow(chunk: ChunkRecord, withVector: boolean): ChunkWriteRow {
  const row: ChunkWriteRow = {
    id: chunk.id,
    path: chunk.path,
    source: chunk.source,
    tier: chunk.tier,
    start_line: chunk.startLine,
    end_line: chunk.endLine,
    headings: JSON.stringify(chunk.headings),
    text: chunk.text,
    hash: chunk.hash,
    terms: chunk.terms.join(" "),
  };
  if (withVector) row.vector = chunk.embedding ? Array.from(chunk.embedding) : null;
  return row;
}

/** A `chunks` row (as LanceDB returns it) as the chunk the contract reads back. */
export function toStoredChunk(row: ChunkRow): StoredChunk {
  return {
    id: row.id,
    path: row.path,
    source: row.source,
    tier: row.tier as Tier,
    startLine: Number(row.start_line),
    endLine: Number(row.end_line),
    headings: JSON.parse(row.headings) as string[],
    text: row.text,
    hash: row.hash,
  };
}

/**
 * The contract's tie order (core's `compareChunkOrder`) for LanceDB rows. SQLite's BINARY
 * collation compares UTF-8 bytes, which orders the same except characters above U+FFFF against
 * U+E000–U+FFFF.
 */
export function compareLocation(a: ChunkRow, b: ChunkRow): number {
  return compareChunkOrder(location(a), location(b));
}

function location(row: ChunkRow): ChunkLocation {
  return {
    path: row.path,
    id: row.id,
    startLine: Number(row.start_line),
    endLine: Number(row.end_line),
  };
}
