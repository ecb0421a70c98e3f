import {
  Binary,
  DataType,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int32,
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

/** Name of one of {@link TABLES}. */
export type TableName = (typeof TABLES)[keyof typeof TABLES];

/** The chunks table's column of analysed terms (joined by single spaces), full-text indexed. */
export const TERMS_COLUMN = "terms";

/** The chunks table's embedding column; present only while the store has dimensions. */
export const VECTOR_COLUMN = "vector";

/** Meta key recording the layout version of the tables (see {@link SCHEMA_VERSION}). */
export const SCHEMA_META_KEY = "store-lancedb.schema";

/**
 * Layout version this package writes. A database recording a newer one is refused untouched; bump
 * it (and convert old data on open) whenever a table's columns change meaning.
 */
export const SCHEMA_VERSION = 2;

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
 * `chunks(id, path, source, tier, start_line, end_line, headings, text, hash, terms[, vector])`.
 * `headings` is a JSON array; `terms` the analysed terms joined by single spaces; `vector` a
 * nullable `FixedSizeList<Float32>[dims]`, present only when `dims` is not null.
 */
export function chunksSchema(dims: number | null): Schema {
  const fields: Field[] = [
    new Field("id", new Utf8(), false),
    new Field("path", new Utf8(), false),
    new Field("source", new Utf8(), false),
    new Field("tier", new Utf8(), false),
    new Field("start_line", new Int32(), false),
    new Field("end_line", new Int32(), false),
    new Field("headings", new Utf8(), false),
    new Field("text", new Utf8(), false),
    new Field("hash", new Utf8(), false),
    new Field(TERMS_COLUMN, new Utf8(), false),
  ];
  if (dims !== null) {
    fields.push(
      new Field(
        VECTOR_COLUMN,
        new FixedSizeList(dims, new Field("item", new Float32(), true)),
        true,
      ),
    );
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

/** The chunk columns a search or read returns (everything but terms and vector). */
export const CHUNK_COLUMNS = [
  "id",
  "path",
  "source",
  "tier",
  "start_line",
  "end_line",
  "headings",
  "text",
  "hash",
] as const;

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
