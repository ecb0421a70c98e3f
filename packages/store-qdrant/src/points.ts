import {
  type ChunkRecord,
  EngramError,
  type FileRecord,
  type StoredChunk,
  type Tier,
} from "@engram/core/driver";
import type { Schemas } from "@qdrant/js-client-rest";
import * as v from "valibot";
import { DENSE_VECTOR, type RecordKind, SPARSE_VECTOR } from "./collections.js";
import { chunkPointId, pathPrefixKeys, recordPointId } from "./ids.js";
import type { Bm25Params } from "./options.js";
import { documentVector } from "./sparse.js";

/**
 * Points and their payloads, declared once: each payload's schema checks what a read returns, and
 * its type checks what a write sends. Payload keys are stored in collections: never rename one.
 */

/** A point as upserted. */
export type Point = Schemas["PointStruct"];
/** A point's payload as Qdrant returns it. */
export type Payload = Record<string, unknown> | null | undefined;

/** The payload of a chunk point a search or read returns: everything the contract reads back. */
const chunkRead = v.object({
  chunk_id: v.string(),
  path: v.string(),
  source: v.string(),
  tier: v.string(),
  start_line: v.number(),
  end_line: v.number(),
  headings: v.array(v.string()),
  text: v.string(),
  hash: v.string(),
});

/**
 * A chunk point's payload: what reads return, plus the keys of its path's prefixes (what a
 * `pathPrefix` filter matches, see `pathPrefixKeys`) and whether it carries a dense vector.
 */
export type ChunkPayload = v.InferOutput<typeof chunkRead> & {
  path_prefixes: number[];
  embedded: boolean;
};

/** The payload keys a search or chunk read asks for. */
export const CHUNK_READ_FIELDS: string[] = Object.keys(chunkRead.entries);

/** Records-collection payloads by kind (each also has `kind`); `cache` is layout 1's, read once. */
const records = {
  file: v.object({
    path: v.string(),
    source: v.string(),
    tier: v.string(),
    hash: v.string(),
    mtime_ms: v.number(),
    size: v.number(),
  }),
  meta: v.object({ key: v.string(), value: v.string() }),
  /** `bytes`: the value as base64; `key_folders`: the key's prefixes that end with "/". */
  kv: v.object({ key: v.string(), bytes: v.string(), key_folders: v.array(v.string()) }),
  cache: v.object({ key: v.string(), vector: v.array(v.number()) }),
} satisfies Record<RecordKind, v.GenericSchema>;

/** A payload of the records collection, of one kind. */
export type RecordPayload<K extends RecordKind> = { kind: K } & v.InferOutput<(typeof records)[K]>;

/**
 * A chunk as a point: its payload, the dense vector when it has an embedding, the sparse BM25
 * vector when it has terms. A point may carry neither (a chunk without terms or vector is stored
 * and read back but never found by a search).
 */
export function chunkPoint(chunk: ChunkRecord, bm25: Bm25Params): Point {
  const vector: Record<string, Schemas["Vector"]> = {};
  if (chunk.embedding) vector[DENSE_VECTOR] = Array.from(chunk.embedding);
  const sparse = documentVector(chunk.terms, bm25);
  if (sparse) vector[SPARSE_VECTOR] = sparse;
  const payload: ChunkPayload = {
    chunk_id: chunk.id,
    path: chunk.path,
    path_prefixes: pathPrefixKeys(chunk.path),
    source: chunk.source,
    tier: chunk.tier,
    start_line: chunk.startLine,
    end_line: chunk.endLine,
    headings: chunk.headings,
    text: chunk.text,
    hash: chunk.hash,
    embedded: chunk.embedding !== null,
  };
  return { id: chunkPointId(chunk.id), vector, payload };
}

/** A chunk point's payload (as returned by a search, scroll or retrieve) as the stored chunk. */
export function storedChunkOf(payload: Payload): StoredChunk {
  const p = read(chunkRead, payload, "chunk");
  return {
    id: p.chunk_id,
    path: p.path,
    source: p.source,
    tier: p.tier as Tier,
    startLine: p.start_line,
    endLine: p.end_line,
    headings: p.headings,
    text: p.text,
    hash: p.hash,
  };
}

/** A file record as a point of the records collection (no vectors). */
export function filePoint(file: FileRecord): Point {
  const { path, source, tier, hash, mtimeMs, size } = file;
  return recordPoint("file", path, { path, source, tier, hash, mtime_ms: mtimeMs, size });
}

/** A file point's payload as the file record. */
export function fileRecordOf(payload: Payload): FileRecord {
  const { path, source, tier, hash, mtime_ms, size } = read(records.file, payload, "file");
  return { path, source, tier: tier as Tier, hash, mtimeMs: mtime_ms, size };
}

/** A meta value as a point of the records collection. */
export function metaPoint(key: string, value: string): Point {
  return recordPoint("meta", key, { key, value });
}

/** A meta point's value. */
export function metaValueOf(payload: Payload): string {
  return read(records.meta, payload, "meta").value;
}

/**
 * A key-value entry as a point of the records collection: the key, the value as base64, and the
 * key's prefixes that end with "/" (`embedding/`, `embedding/3/`), indexed so that core's usual
 * prefixes are counted and deleted by a filter.
 */
export function keyValuePoint(key: string, value: Uint8Array): Point {
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
  return recordPoint("kv", key, { key, bytes, key_folders: keyFolders(key) });
}

/** The prefixes of `key` that end with "/", shortest first. */
export function keyFolders(key: string): string[] {
  const folders: string[] = [];
  for (let at = key.indexOf("/"); at >= 0; at = key.indexOf("/", at + 1)) {
    folders.push(key.slice(0, at + 1));
  }
  return folders;
}

/** A key-value point's key and value. */
export function keyValueEntryOf(payload: Payload): { key: string; value: Uint8Array } {
  const { key, bytes } = read(records.kv, payload, "key-value");
  return { key, value: new Uint8Array(Buffer.from(bytes, "base64")) };
}

/** A layout-1 embedding cache point's key and vector (read once, to move it). */
export function cacheEntryOf(payload: Payload): [key: string, vector: Float32Array] {
  const { key, vector } = read(records.cache, payload, "cache");
  return [key, Float32Array.from(vector)];
}

/** A vector-less point of the records collection, its id derived from its kind and key. */
function recordPoint<K extends RecordKind>(
  kind: K,
  key: string,
  payload: Omit<RecordPayload<K>, "kind">,
): Point {
  return { id: recordPointId(kind, key), vector: {}, payload: { kind, ...payload } };
}

/** `payload` checked against `schema`. @throws EngramError `STORE_FAILED` naming the bad key. */
function read<S extends v.GenericSchema>(
  schema: S,
  payload: Payload,
  what: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, payload);
  if (result.success) return result.output;
  const key = v.getDotPath(result.issues[0]) ?? "payload";
  throw new EngramError(
    "STORE_FAILED",
    `A ${what} point in the Qdrant collection has no valid "${key}": the collection was not written by this engram store.`,
    {
      hint: "Point the store at a collection of its own (store.options.collection), or delete the collection and run `engram sync` to rebuild it from your Markdown files.",
    },
  );
}
