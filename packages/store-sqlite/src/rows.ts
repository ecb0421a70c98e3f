import type { SearchFilter, StoredChunk } from "@engram/core/driver";
import type { StatementCache } from "./connection.js";

/** The `files` columns as a `FileRecord`'s fields. */
export const FILE_COLUMNS = "path, source, tier, hash, mtime_ms AS mtimeMs, size";

/** A `chunks` row as every chunk query selects it ({@link chunkColumns}): headings as JSON. */
export type ChunkRow = Omit<StoredChunk, "headings"> & { rowid: number; headings: string };

/** The columns of {@link ChunkRow}, qualified by `alias`. */
export function chunkColumns(a: string): string {
  return `${a}.rowid AS rowid, ${a}.id AS id, ${a}.path AS path, ${a}.source AS source,
    ${a}.tier AS tier, ${a}.start_line AS startLine, ${a}.end_line AS endLine,
    ${a}.headings AS headings, ${a}.text AS text, ${a}.hash AS hash`;
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

/** A chunk row as the contract's chunk. */
export function toStoredChunk(row: ChunkRow): StoredChunk {
  return {
    id: row.id,
    path: row.path,
    source: row.source,
    tier: row.tier,
    startLine: row.startLine,
    endLine: row.endLine,
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
