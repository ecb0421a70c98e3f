import { type ChunkRecord, type FileRecord, isTier } from "@engram/core/driver";
import { decodeBytes, decodeVector, encodeBytes, encodeVector } from "./vector-codec.js";

/** The `format` every snapshot's first line names. */
export const SNAPSHOT_FORMAT = "engram-store-memory-snapshot";
/** The snapshot layout this version writes (it reads version 1 too). */
export const SNAPSHOT_VERSION = 2;

/**
 * Where version 1's embedding cache entries go in the key-value map: generation 0 of core's
 * embedding cache, whose entries are the same little-endian float32 bytes.
 */
const V1_CACHE_PREFIX = "embedding/0/";

/** What a snapshot holds: everything the store holds. */
export interface StoreState {
  dims: number | null;
  meta: ReadonlyArray<readonly [key: string, value: string]>;
  files: readonly FileRecord[];
  chunks: readonly ChunkRecord[];
  /** The key-value map. */
  keyValue: ReadonlyArray<readonly [key: string, value: Uint8Array]>;
}

/** What {@link SnapshotDecoder} gives back: chunks as records, ready to write. */
export interface DecodedState {
  dims: number | null;
  meta: Array<[key: string, value: string]>;
  files: FileRecord[];
  /** Chunks grouped under their file's path. */
  chunks: Map<string, ChunkRecord[]>;
  keyValue: Array<[key: string, value: Uint8Array]>;
}

/** A snapshot line that does not fit the format; the message says what and where. */
export class SnapshotFormatError extends Error {}

/**
 * The snapshot as JSON Lines: a header `{format, version, dims, savedAt}`, then one record per
 * line — `{"meta": [key, value]}`, `{"file": {…}}`, `{"chunk": {…, terms, embedding}}` (embedding:
 * base64 of little-endian float32, or null), `{"kv": [key, base64]}` — and last
 * `{"end": {meta, files, chunks, kv}}` with the counts, so a cut-off file is detected. Lines are
 * produced lazily: the whole snapshot never has to fit in one string. (Version 1 had
 * `{"cache": [key, base64 float32]}` records, read into the key-value map as core's embedding
 * cache.)
 */
export function* encodeSnapshot(state: StoreState, savedAt: Date): Generator<string> {
  yield JSON.stringify({
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    dims: state.dims,
    savedAt: savedAt.toISOString(),
  });
  for (const [key, value] of state.meta) yield JSON.stringify({ meta: [key, value] });
  for (const { path, source, tier, hash, mtimeMs, size } of state.files) {
    yield JSON.stringify({ file: { path, source, tier, hash, mtimeMs, size } });
  }
  for (const chunk of state.chunks) {
    const { id, path, source, tier, startLine, endLine, headings, text, hash, terms } = chunk;
    const embedding = chunk.embedding === null ? null : encodeVector(chunk.embedding);
    yield JSON.stringify({
      chunk: { id, path, source, tier, startLine, endLine, headings, text, hash, terms, embedding },
    });
  }
  for (const [key, value] of state.keyValue)
    yield JSON.stringify({ kv: [key, encodeBytes(value)] });
  yield JSON.stringify({
    end: {
      meta: state.meta.length,
      files: state.files.length,
      chunks: state.chunks.length,
      kv: state.keyValue.length,
    },
  });
}

type Json = Record<string, unknown>;

/**
 * Reads a snapshot line by line ({@link encodeSnapshot}'s layout), checking every record, and
 * throws {@link SnapshotFormatError} naming the line at the first thing that does not fit.
 */
export class SnapshotDecoder {
  #line = 0;
  #version = SNAPSHOT_VERSION;
  #dims: number | null | undefined;
  #ended = false;
  readonly #meta: Array<[string, string]> = [];
  readonly #files = new Map<string, FileRecord>();
  readonly #chunks = new Map<string, ChunkRecord[]>();
  readonly #ids = new Set<string>();
  #chunkCount = 0;
  readonly #keyValue: Array<[string, Uint8Array]> = [];

  /** Take the next line. */
  line(text: string): void {
    this.#line++;
    if (this.#ended) {
      if (text.trim() === "") return;
      this.#fail("there is data after the end record");
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#fail("it is not JSON");
    }
    if (this.#dims === undefined) {
      this.#header(value);
      return;
    }
    if (!isObject(value) || Object.keys(value).length !== 1) {
      this.#fail("expected one of {meta}, {file}, {chunk}, {kv}, {end}");
    }
    if ("meta" in value) this.#metaRecord(value.meta);
    else if ("file" in value) this.#fileRecord(value.file);
    else if ("chunk" in value) this.#chunkRecord(value.chunk);
    else if ("kv" in value && this.#version >= 2) this.#keyValueRecord(value.kv);
    else if ("cache" in value && this.#version === 1) this.#cacheRecord(value.cache);
    else if ("end" in value) this.#end(value.end);
    else this.#fail(`unknown record ${JSON.stringify(Object.keys(value)[0])}`);
  }

  /** The decoded state; throws when the snapshot ended early. */
  finish(): DecodedState {
    if (this.#dims === undefined) this.#fail("the file is empty");
    if (!this.#ended) this.#fail("it ends before its end record (the file is cut off)");
    return {
      dims: this.#dims,
      meta: this.#meta,
      files: [...this.#files.values()],
      chunks: this.#chunks,
      keyValue: this.#keyValue,
    };
  }

  #header(value: unknown): void {
    if (!isObject(value) || value.format !== SNAPSHOT_FORMAT) {
      this.#fail(`the first line does not name the format ${SNAPSHOT_FORMAT}`);
    }
    if (value.version !== 1 && value.version !== SNAPSHOT_VERSION) {
      this.#fail(
        `it has format version ${JSON.stringify(value.version)}; this @engram/store-memory reads versions 1 to ${SNAPSHOT_VERSION}`,
      );
    }
    this.#version = value.version;
    const dims = value.dims;
    if (dims !== null && !(Number.isInteger(dims) && (dims as number) > 0)) {
      this.#fail("dims must be a positive integer or null");
    }
    this.#dims = dims as number | null;
  }

  #metaRecord(value: unknown): void {
    const [key, text] = this.#pair(value, "meta");
    this.#meta.push([key, text]);
  }

  #fileRecord(value: unknown): void {
    const record = this.#object(value, "file");
    const file: FileRecord = {
      path: this.#string(record, "path"),
      source: this.#string(record, "source"),
      tier: this.#tier(record),
      hash: this.#string(record, "hash"),
      mtimeMs: this.#number(record, "mtimeMs"),
      size: this.#number(record, "size"),
    };
    if (this.#files.has(file.path)) this.#fail(`file ${file.path} appears twice`);
    this.#files.set(file.path, file);
  }

  #chunkRecord(value: unknown): void {
    const record = this.#object(value, "chunk");
    const chunk: ChunkRecord = {
      id: this.#string(record, "id"),
      path: this.#string(record, "path"),
      source: this.#string(record, "source"),
      tier: this.#tier(record),
      startLine: this.#integer(record, "startLine"),
      endLine: this.#integer(record, "endLine"),
      headings: this.#strings(record, "headings"),
      text: this.#string(record, "text"),
      hash: this.#string(record, "hash"),
      terms: this.#strings(record, "terms"),
      embedding: this.#embedding(record),
    };
    if (!this.#files.has(chunk.path)) this.#fail(`chunk ${chunk.id} belongs to no file record`);
    if (this.#ids.has(chunk.id)) this.#fail(`chunk id ${chunk.id} appears twice`);
    this.#ids.add(chunk.id);
    const chunks = this.#chunks.get(chunk.path);
    if (chunks) chunks.push(chunk);
    else this.#chunks.set(chunk.path, [chunk]);
    this.#chunkCount++;
  }

  #keyValueRecord(value: unknown): void {
    const [key, text] = this.#pair(value, "kv");
    const bytes = decodeBytes(text);
    if (bytes === undefined) this.#fail(`the value of ${key} is not base64`);
    this.#keyValue.push([key, bytes]);
  }

  /** Version 1's embedding cache entry: a vector, kept as core's cache keeps it. */
  #cacheRecord(value: unknown): void {
    const [key, text] = this.#pair(value, "cache");
    const bytes = decodeBytes(text);
    if (bytes === undefined || bytes.length % 4 !== 0) {
      this.#fail(`the cached vector of ${key} is not base64 float32`);
    }
    this.#keyValue.push([`${V1_CACHE_PREFIX}${key}`, bytes]);
  }

  #end(value: unknown): void {
    const counts = this.#object(value, "end");
    const expected = {
      meta: this.#meta.length,
      files: this.#files.size,
      chunks: this.#chunkCount,
      [this.#version === 1 ? "cache" : "kv"]: this.#keyValue.length,
    };
    for (const [name, count] of Object.entries(expected)) {
      if (counts[name] !== count) {
        this.#fail(
          `the end record counts ${String(counts[name])} ${name}, the file holds ${count}`,
        );
      }
    }
    this.#ended = true;
  }

  #embedding(record: Json): Float32Array | null {
    const value = record.embedding;
    if (value === null) return null;
    if (typeof value !== "string") this.#fail("chunk.embedding must be base64 or null");
    if (this.#dims === null || this.#dims === undefined) {
      this.#fail("a chunk has an embedding but the snapshot has no vector space (dims null)");
    }
    const vector = decodeVector(value);
    if (vector?.length !== this.#dims) {
      this.#fail(`a chunk's embedding is not ${this.#dims} base64 float32 values`);
    }
    return vector;
  }

  #pair(value: unknown, name: string): [string, string] {
    if (
      !Array.isArray(value) ||
      value.length !== 2 ||
      typeof value[0] !== "string" ||
      typeof value[1] !== "string"
    ) {
      this.#fail(`${name} must be a [string, string] pair`);
    }
    return [value[0], value[1]];
  }

  #object(value: unknown, name: string): Json {
    if (!isObject(value)) this.#fail(`${name} must be an object`);
    return value;
  }

  #string(record: Json, key: string): string {
    const value = record[key];
    if (typeof value !== "string") this.#fail(`${key} must be a string`);
    return value;
  }

  #strings(record: Json, key: string): string[] {
    const value = record[key];
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
      this.#fail(`${key} must be an array of strings`);
    }
    return value;
  }

  #number(record: Json, key: string): number {
    const value = record[key];
    if (typeof value !== "number" || !Number.isFinite(value)) this.#fail(`${key} must be a number`);
    return value;
  }

  #integer(record: Json, key: string): number {
    const value = this.#number(record, key);
    if (!Number.isInteger(value)) this.#fail(`${key} must be an integer`);
    return value;
  }

  #tier(record: Json) {
    const value = record.tier;
    if (!isTier(value)) this.#fail(`tier ${JSON.stringify(value)} is not a tier`);
    return value;
  }

  #fail(problem: string): never {
    throw new SnapshotFormatError(`line ${this.#line}: ${problem}`);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
