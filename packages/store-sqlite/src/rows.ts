import {
  compareChunkOrder,
  type FileRecord,
  type SearchFilter,
  type StoredChunk,
} from "@engram/core/driver";
import type { StatementCache } from "./connection.js";

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

/** A float32 BLOB as a new Float32Array (core's; copied, so the Buffer's alignment never matters). */
export { bytesToVector as blobToVector } from "@engram/core/driver";

/** A piece of SQL with its positional parameters. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/**
 * `AND …` conditions restricting rows of `alias` (a table with `tier`, `source` and, unless
 * `withPath` is false, `path` columns) to `filter`. Lists bind as one JSON parameter, so the SQL
 * text depends only on which fields are present and prepared statements can be reused. An empty
 * list matches nothing; an absent field does not restrict. `pathPrefix` is a plain,
 * case-sensitive string prefix (no LIKE wildcards).
 */
export function filterConditions(
  filter: SearchFilter | undefined,
  alias: string,
  withPath = true,
): SqlFragment {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter?.tiers) {
    parts.push(`AND ${alias}.tier IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.tiers));
  }
  if (filter?.sources) {
    parts.push(`AND ${alias}.source IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.sources));
  }
  if (withPath && filter?.pathPrefix) {
    // `path >= prefix` lets SQLite start at the prefix in the path index; substr decides.
    parts.push(`AND ${alias}.path >= ? AND substr(${alias}.path, 1, length(?)) = ?`);
    params.push(filter.pathPrefix, filter.pathPrefix, filter.pathPrefix);
  }
  return { sql: parts.join(" "), params };
}

/** True when the filter restricts by path prefix (which vec0 cannot do during KNN). */
export function hasPathPrefix(filter: SearchFilter | undefined): boolean {
  return Boolean(filter?.pathPrefix);
}

/** `vector` scaled to unit length (float32), or undefined for a zero or non-finite vector. */
export function toUnitLength(vector: Float32Array): Float32Array | undefined {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) * (vector[i] as number);
  norm = Math.sqrt(norm);
  if (!(norm > 0 && Number.isFinite(norm))) return undefined;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) / norm;
  return out;
}
