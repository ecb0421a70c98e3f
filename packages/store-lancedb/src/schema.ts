import type { ChunkRecord, FileRecord, StoredChunk, StoreHit, Tier } from "@engram/core/driver";
import {
  type Table as ArrowTable,
  Binary,
  DataType,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Schema,
  Utf8,
} from "apache-arrow";

/** The four tables of the database. */
export const TABLES = {
  meta: "meta",
  files: "files",
  chunks: "chunks",
  keyValue: "key_value",
} as const;

/** The chunks table's column of analysed terms (joined by single spaces), full-text indexed. */
export const TERMS_COLUMN = "terms";

/** The chunks table's embedding column; present only while the store has dimensions. */
export const VECTOR_COLUMN = "vector";

/**
 * The chunks table's column holding the whole chunk as JSON: what searches and reads return. One
 * column instead of nine: LanceDB fetches each selected column of each hit separately, and at
 * 10,000 chunks reading nine cost a search ~2 ms more than reading one.
 */
export const CHUNK_COLUMN = "chunk";

/** Meta key recording the layout version of the tables (see {@link SCHEMA_VERSION}). */
export const SCHEMA_META_KEY = "store-lancedb.schema";

/**
 * Layout version this package writes. A database recording a newer one is refused untouched; bump
 * it (and convert old data on open) whenever a table's columns change meaning. 1 kept the
 * embedding cache in a table of its own; 2 kept each chunk field in a column of its own; 3 kept
 * vectors as written and searched them by cosine distance (4 keeps them at unit length and
 * searches by dot product: the same ranking, and LanceDB's scan skips the norms).
 */
export const SCHEMA_VERSION = 4;

/** `meta(key, value)`. */
export function metaSchema(): Schema {
  return new Schema([new Field("key", new Utf8(), false), new Field("value", new Utf8(), false)]);
}

/**
 * `files(path, source, tier, hash, mtime_ms, size)`. Times and sizes are Float64: exact for every
 * JavaScript number, and read back as numbers rather than BigInts.
 */
export function filesSchema(): Schema {
  return new Schema([
    new Field("path", new Utf8(), false),
    new Field("source", new Utf8(), false),
    new Field("tier", new Utf8(), false),
    new Field("hash", new Utf8(), false),
    new Field("mtime_ms", new Float64(), false),
    new Field("size", new Float64(), false),
  ]);
}

/**
 * `chunks(id, path, source, tier, chunk, terms[, vector])`: `id` is the merge key, `path`, `source`
 * and `tier` are what deletes and filters test, `chunk` the stored chunk as JSON, `terms` the
 * analysed terms joined by single spaces, `vector` a nullable `FixedSizeList<Float32>[dims]`,
 * present only when `dims` is not null.
 */
export function chunksSchema(dims: number | null): Schema {
  const fields: Field[] = ["id", "path", "source", "tier", CHUNK_COLUMN, TERMS_COLUMN].map(
    (name) => new Field(name, new Utf8(), false),
  );
  if (dims !== null) {
    const item = new Field("item", new Float32(), true);
    fields.push(new Field(VECTOR_COLUMN, new FixedSizeList(dims, item), true));
  }
  return new Schema(fields);
}

/** `key_value(key, value)`: the store's key → bytes map (core's embedding cache lives there). */
export function keyValueSchema(): Schema {
  return new Schema([new Field("key", new Utf8(), false), new Field("value", new Binary(), false)]);
}

/**
 * The table layout version 1 kept the embedding cache in (`key`, `vector`, `last_used`); its
 * entries move into `key_value` when such a database opens (see `moveEmbeddingCache`).
 */
export const OLD_CACHE_TABLE = "embedding_cache";

/** The dimensions of the chunks table's vector column, or null when it has none. */
export function dimsOf(schema: Schema): number | null {
  const field = schema.fields.find((f) => f.name === VECTOR_COLUMN);
  if (!field) return null;
  // By type id, not instanceof: the schema may come from another copy of apache-arrow.
  return DataType.isFixedSizeList(field.type) ? field.type.listSize : null;
}

/** Column names of `schema` missing from `actual` (an opened table's schema). */
export function missingColumns(expected: Schema, actual: Schema): string[] {
  const have = new Set(actual.fields.map((f) => f.name));
  return expected.fields.map((f) => f.name).filter((name) => !have.has(name));
}

/** A `files` row as read from or written to LanceDB (a type alias, so LanceDB takes it as a record). */
export type FileRow = {
  path: string;
  source: string;
  tier: string;
  hash: string;
  mtime_ms: number;
  size: number;
};

/** A `chunks` row as written (with dims, `vector` too). */
export type ChunkRow = {
  id: string;
  path: string;
  source: string;
  tier: string;
  chunk: string;
  terms: string;
  /** At unit length (see {@link unitLength}). */
  vector?: number[] | null;
};

/** A file record as a `files` row. */
export function toFileRow(file: FileRecord): FileRow {
  const { path, source, tier, hash, mtimeMs, size } = file;
  return { path, source, tier, hash, mtime_ms: mtimeMs, size };
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
export function toChunkRow(chunk: ChunkRecord, withVector: boolean): ChunkRow {
  const { id, path, source, tier, startLine, endLine, headings, text, hash } = chunk;
  const stored: StoredChunk = { id, path, source, tier, startLine, endLine, headings, text, hash };
  const row: ChunkRow = {
    id,
    path,
    source,
    tier,
    chunk: JSON.stringify(stored),
    terms: chunk.terms.join(" "),
  };
  if (withVector) row.vector = chunk.embedding ? unitLength(chunk.embedding) : null;
  return row;
}

/**
 * `values` scaled to unit length, so that their dot product with a unit query is the cosine
 * similarity; null for a zero vector, which has no direction (stored as no vector, it never
 * matches, as it never did by cosine distance).
 */
export function unitLength(values: ArrayLike<number>): number[] | null {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += (values[i] as number) ** 2;
  if (sum === 0) return null;
  const norm = Math.sqrt(sum);
  return Array.from(values, (x) => x / norm);
}

/** The stored chunk of a row read with its {@link CHUNK_COLUMN}. */
export function toStoredChunk(row: { chunk: string }): StoredChunk {
  return JSON.parse(row.chunk) as StoredChunk;
}

/**
 * The hits of a search result, read column by column (no row objects): each row's stored chunk
 * from {@link CHUNK_COLUMN}, scored by `score` from its `column` value; rows `score` gives
 * undefined for are left out. Best first as LanceDB returned them.
 */
export function hitsOf(
  result: ArrowTable,
  column: string,
  score: (value: number | null) => number | undefined,
): StoreHit[] {
  const chunks = result.getChild(CHUNK_COLUMN);
  const values = result.getChild(column);
  const hits: StoreHit[] = [];
  if (!chunks || !values) return hits;
  for (let i = 0; i < result.numRows; i++) {
    const value = score(values.get(i) as number | null);
    if (value !== undefined)
      hits.push({ chunk: JSON.parse(chunks.get(i)) as StoredChunk, score: value });
  }
  return hits;
}
