import type { Schemas } from "@qdrant/js-client-rest";

/** Name of the chunk collection's dense (embedding) vector. */
export const DENSE_VECTOR = "dense";
/** Name of the chunk collection's sparse BM25 vector. */
export const SPARSE_VECTOR = "bm25";

/** Payload keys of a chunk point. */
export const CHUNK_FIELDS = {
  id: "chunk_id",
  path: "path",
  pathPrefixes: "path_prefixes",
  source: "source",
  tier: "tier",
  startLine: "start_line",
  endLine: "end_line",
  headings: "headings",
  text: "text",
  hash: "hash",
  embedded: "embedded",
} as const;

/** The chunk payload a search or read returns: everything the contract reads back. */
export const CHUNK_READ_FIELDS: string[] = [
  CHUNK_FIELDS.id,
  CHUNK_FIELDS.path,
  CHUNK_FIELDS.source,
  CHUNK_FIELDS.tier,
  CHUNK_FIELDS.startLine,
  CHUNK_FIELDS.endLine,
  CHUNK_FIELDS.headings,
  CHUNK_FIELDS.text,
  CHUNK_FIELDS.hash,
];

/**
 * What a point of the records collection holds: a file record, a meta value, a key-value entry, or
 * (layout 1) an embedding cache entry, moved into key-value entries when the store opens.
 */
export const RECORD_KINDS = ["file", "meta", "kv", "cache"] as const;
/** One of {@link RECORD_KINDS}. */
export type RecordKind = (typeof RECORD_KINDS)[number];

/** Payload keys of a records point (a file record, a meta value or a cache entry). */
export const RECORD_FIELDS = {
  kind: "kind",
  // file
  path: "path",
  source: "source",
  tier: "tier",
  hash: "hash",
  mtimeMs: "mtime_ms",
  size: "size",
  // meta
  key: "key",
  value: "value",
  // kv (also `key`): the value as base64, and the key's prefixes that end with "/"
  bytes: "bytes",
  keyFolders: "key_folders",
  // cache, layout 1 (also `key`): the vector as an array of numbers
  vector: "vector",
} as const;

/** Meta key of the store's layout: its version and the BM25 parameters its vectors were built with. */
export const LAYOUT_META_KEY = "store-qdrant.layout";

/**
 * Layout version this package writes. A collection recording a newer one is refused untouched;
 * bump it (and convert old data on open) whenever a payload field changes meaning.
 */
export const LAYOUT_VERSION = 1;

/** A payload index to create. */
export interface PayloadIndex {
  field_name: string;
  field_schema: Schemas["PayloadFieldSchema"];
}

/** Indexes of the chunk collection: every field a filter or a delete uses. */
export const CHUNK_INDEXES: readonly PayloadIndex[] = [
  { field_name: CHUNK_FIELDS.path, field_schema: "keyword" },
  {
    field_name: CHUNK_FIELDS.pathPrefixes,
    field_schema: { type: "integer", lookup: true, range: false },
  },
  { field_name: CHUNK_FIELDS.tier, field_schema: "keyword" },
  { field_name: CHUNK_FIELDS.source, field_schema: "keyword" },
  { field_name: CHUNK_FIELDS.embedded, field_schema: "bool" },
];

/** The body that creates the records collection: named vectors, none of them (payload only). */
export const RECORDS_COLLECTION_CONFIG: Schemas["CreateCollection"] = { vectors: {} };

/** Indexes of the records collection (`key_folders`: counting and deleting keys by prefix). */
export const RECORD_INDEXES: readonly PayloadIndex[] = [
  { field_name: RECORD_FIELDS.kind, field_schema: "keyword" },
  { field_name: RECORD_FIELDS.source, field_schema: "keyword" },
  { field_name: RECORD_FIELDS.keyFolders, field_schema: "keyword" },
];

/** The body that creates the chunk collection for `dims`-dimensional vectors (null: none). */
export function chunkCollectionConfig(dims: number | null): Schemas["CreateCollection"] {
  return {
    // An empty map of named vectors (not a missing field): points then take `vector: {…}` maps.
    vectors: dims === null ? {} : { [DENSE_VECTOR]: { size: dims, distance: "Cosine" } },
    sparse_vectors: { [SPARSE_VECTOR]: { modifier: "idf" } },
  };
}

/** What an existing collection's config says about it. */
export interface ChunkCollectionShape {
  /** Dimensions of the dense vector, or null when it has none. */
  dims: number | null;
  /** Problems that make it not an engram chunk collection (empty when it is one). */
  problems: string[];
}

/** Read the dims of a chunk collection from its info, and check it is one of ours. */
export function chunkCollectionShape(info: Schemas["CollectionInfo"]): ChunkCollectionShape {
  const problems: string[] = [];
  const sparse = info.config.params.sparse_vectors?.[SPARSE_VECTOR];
  if (!sparse) problems.push(`no sparse vector "${SPARSE_VECTOR}"`);
  else if (sparse.modifier !== "idf")
    problems.push(`sparse vector "${SPARSE_VECTOR}" lacks the idf modifier`);
  const vectors = info.config.params.vectors as
    | Record<string, { size?: number; distance?: string } | undefined>
    | { size: number; distance: string }
    | undefined;
  let dims: number | null = null;
  if (vectors && typeof (vectors as { size?: unknown }).size === "number") {
    problems.push("an unnamed dense vector");
  } else if (vectors) {
    const dense = (vectors as Record<string, { size?: number; distance?: string } | undefined>)[
      DENSE_VECTOR
    ];
    if (dense) {
      dims = typeof dense.size === "number" ? dense.size : null;
      if (dense.distance !== "Cosine")
        problems.push(`dense vector distance ${dense.distance}, not Cosine`);
    }
  }
  return { dims, problems };
}
