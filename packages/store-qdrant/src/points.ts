import {
  type ChunkRecord,
  EngramError,
  type FileRecord,
  type StoredChunk,
  type Tier,
} from "@engram/core/driver";
import type { Schemas } from "@qdrant/js-client-rest";
import { CHUNK_FIELDS, DENSE_VECTOR, RECORD_FIELDS, SPARSE_VECTOR } from "./collections.js";
import { chunkPointId, pathPrefixKeys, recordPointId } from "./ids.js";
import type { Bm25Params } from "./options.js";
import { documentVector } from "./sparse.js";

/** A point as upserted. */
export type Point = Schemas["PointStruct"];
/** A point's payload as Qdrant returns it. */
export type Payload = Record<string, unknown> | null | undefined;

/**
 * Builds chunk points. Path prefix keys are computed once per path (a file's chunks share them).
 */
export class ChunkPoints {
  readonly #prefixes = new Map<string, number[]>();

  constructor(private readonly bm25: Bm25Params) {}

  /**
   * A chunk as a point: its payload, the dense vector when it has an embedding, the sparse BM25
   * vector when it has terms. A point may carry neither (a chunk without terms or vector is stored
   * and read back but never found by a search).
   */
  point(chunk: ChunkRecord): Point {
    const vector: Record<string, Schemas["Vector"]> = {};
    if (chunk.embedding) vector[DENSE_VECTOR] = Array.from(chunk.embedding);
    const sparse = documentVector(chunk.terms, this.bm25);
    if (sparse) vector[SPARSE_VECTOR] = sparse;
    return {
      id: chunkPointId(chunk.id),
      vector,
      payload: {
        [CHUNK_FIELDS.id]: chunk.id,
        [CHUNK_FIELDS.path]: chunk.path,
        [CHUNK_FIELDS.pathPrefixes]: this.#prefixKeys(chunk.path),
        [CHUNK_FIELDS.source]: chunk.source,
        [CHUNK_FIELDS.tier]: chunk.tier,
        [CHUNK_FIELDS.startLine]: chunk.startLine,
        [CHUNK_FIELDS.endLine]: chunk.endLine,
        [CHUNK_FIELDS.headings]: chunk.headings,
        [CHUNK_FIELDS.text]: chunk.text,
        [CHUNK_FIELDS.hash]: chunk.hash,
        [CHUNK_FIELDS.embedded]: chunk.embedding !== null,
      },
    };
  }

  #prefixKeys(path: string): number[] {
    let keys = this.#prefixes.get(path);
    if (!keys) {
      keys = pathPrefixKeys(path);
      if (this.#prefixes.size > 10_000) this.#prefixes.clear();
      this.#prefixes.set(path, keys);
    }
    return keys;
  }
}

/** A chunk point's payload (as returned by a search, scroll or retrieve) as the stored chunk. */
export function storedChunkOf(payload: Payload): StoredChunk {
  const p = payloadOf(payload, "chunk");
  return {
    id: text(p, CHUNK_FIELDS.id),
    path: text(p, CHUNK_FIELDS.path),
    source: text(p, CHUNK_FIELDS.source),
    tier: text(p, CHUNK_FIELDS.tier) as Tier,
    startLine: num(p, CHUNK_FIELDS.startLine),
    endLine: num(p, CHUNK_FIELDS.endLine),
    headings: strings(p, CHUNK_FIELDS.headings),
    text: text(p, CHUNK_FIELDS.text),
    hash: text(p, CHUNK_FIELDS.hash),
  };
}

/** A file record as a point of the records collection (no vectors). */
export function filePoint(file: FileRecord): Point {
  return {
    id: recordPointId("file", file.path),
    vector: {},
    payload: {
      [RECORD_FIELDS.kind]: "file",
      [RECORD_FIELDS.path]: file.path,
      [RECORD_FIELDS.source]: file.source,
      [RECORD_FIELDS.tier]: file.tier,
      [RECORD_FIELDS.hash]: file.hash,
      [RECORD_FIELDS.mtimeMs]: file.mtimeMs,
      [RECORD_FIELDS.size]: file.size,
    },
  };
}

/** A file point's payload as the file record. */
export function fileRecordOf(payload: Payload): FileRecord {
  const p = payloadOf(payload, "file");
  return {
    path: text(p, RECORD_FIELDS.path),
    source: text(p, RECORD_FIELDS.source),
    tier: text(p, RECORD_FIELDS.tier) as Tier,
    hash: text(p, RECORD_FIELDS.hash),
    mtimeMs: num(p, RECORD_FIELDS.mtimeMs),
    size: num(p, RECORD_FIELDS.size),
  };
}

/** A meta value as a point of the records collection. */
export function metaPoint(key: string, value: string): Point {
  return {
    id: recordPointId("meta", key),
    vector: {},
    payload: {
      [RECORD_FIELDS.kind]: "meta",
      [RECORD_FIELDS.key]: key,
      [RECORD_FIELDS.value]: value,
    },
  };
}

/** A meta point's value. */
export function metaValueOf(payload: Payload): string {
  return text(payloadOf(payload, "meta"), RECORD_FIELDS.value);
}

/**
 * A key-value entry as a point of the records collection: the key, the value as base64, and the
 * key's prefixes that end with "/" (`embedding/`, `embedding/3/`), indexed so that core's usual
 * prefixes are counted and deleted by a filter.
 */
export function keyValuePoint(key: string, value: Uint8Array): Point {
  return {
    id: recordPointId("kv", key),
    vector: {},
    payload: {
      [RECORD_FIELDS.kind]: "kv",
      [RECORD_FIELDS.key]: key,
      [RECORD_FIELDS.bytes]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString(
        "base64",
      ),
      [RECORD_FIELDS.keyFolders]: keyFolders(key),
    },
  };
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
  const p = payloadOf(payload, "key-value");
  return {
    key: text(p, RECORD_FIELDS.key),
    value: new Uint8Array(Buffer.from(text(p, RECORD_FIELDS.bytes), "base64")),
  };
}

/** A layout-1 embedding cache point's key and vector (read once, to move it). */
export function cacheEntryOf(payload: Payload): [key: string, vector: Float32Array] {
  const p = payloadOf(payload, "cache");
  const vector = p[RECORD_FIELDS.vector];
  if (!Array.isArray(vector) || !vector.every((x) => typeof x === "number")) {
    throw malformed("cache", RECORD_FIELDS.vector);
  }
  return [text(p, RECORD_FIELDS.key), Float32Array.from(vector as number[])];
}

function payloadOf(payload: Payload, what: string): Record<string, unknown> {
  if (!payload || typeof payload !== "object") throw malformed(what, "payload");
  return payload;
}

function text(p: Record<string, unknown>, key: string): string {
  const value = p[key];
  if (typeof value !== "string") throw malformed("record", key);
  return value;
}

function num(p: Record<string, unknown>, key: string): number {
  const value = p[key];
  if (typeof value !== "number") throw malformed("record", key);
  return value;
}

function strings(p: Record<string, unknown>, key: string): string[] {
  const value = p[key];
  if (!Array.isArray(value) || !value.every((x) => typeof x === "string")) {
    throw malformed("record", key);
  }
  return value as string[];
}

function malformed(what: string, key: string): EngramError {
  return new EngramError(
    "STORE_FAILED",
    `A ${what} point in the Qdrant collection has no valid "${key}": the collection was not written by this engram store.`,
    {
      hint: "Point the store at a collection of its own (store.options.collection), or delete the collection and run `engram sync` to rebuild it from your Markdown files.",
    },
  );
}
