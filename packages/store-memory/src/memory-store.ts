import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import {
  assertQueryDims,
  EngramError,
  type FileRecord,
  type MemoryStore,
  resultLimit,
  type SearchFilter,
  type Source,
  type StoreBatch,
  type StoreCapabilities,
  type StoredChunk,
  type StoreHit,
  type StoreStats,
  storeClosedError,
  storeNotInitialisedError,
} from "@engram/core";
import { copyChunk } from "./chunk-entry.js";
import { ChunkTable } from "./chunk-table.js";
import { MemoryEmbeddingCache } from "./embedding-cache.js";
import { snapshotUnwritableError } from "./errors.js";
import { checkOptions, type MemoryStoreOptions } from "./options.js";
import { readSnapshot, writeLinesAtomically } from "./snapshot-file.js";
import { type DecodedState, encodeSnapshot, type StoreState } from "./snapshot-format.js";
import { TextIndex } from "./text-index.js";
import type { Scored } from "./top-k.js";
import { VectorIndex } from "./vector-index.js";

type Phase = "new" | "open" | "closed";

/**
 * A {@link MemoryStore} held entirely in this process's memory: BM25 through
 * wink-bm25-text-search over core's analysed terms, exact cosine search over the vectors, and an
 * LRU embedding cache. With `snapshotPath` it survives restarts through a JSON Lines snapshot
 * saved on `close()`, on `snapshot()` and periodically; without, it never touches the disk.
 *
 * Every method works synchronously on the in-memory data (and resolves at once), so concurrent
 * calls never see a half-applied write. One process per snapshot file: two stores saving to one
 * file overwrite each other's snapshots (the last save wins).
 */
export class InMemoryStore implements MemoryStore {
  readonly kind = "memory";
  readonly capabilities: StoreCapabilities;
  readonly cache: MemoryEmbeddingCache;
  /** The snapshot file (absolute), or undefined when the store never touches the disk. */
  readonly snapshotPath: string | undefined;

  readonly #intervalMs: number;
  readonly #onSnapshotError: (error: EngramError) => void;
  readonly #text = new TextIndex();
  readonly #vectors = new VectorIndex();
  readonly #table = new ChunkTable([this.#text, this.#vectors]);
  readonly #meta = new Map<string, string>();
  #dims: number | null = null;
  #phase: Phase = "new";
  #opening: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Bumped by every change; a snapshot is due while it differs from `#savedVersion`. */
  #version = 0;
  #savedVersion = 0;
  /** The last save in progress: saves run one after another, never interleaved. */
  #saving: Promise<void> = Promise.resolve();

  constructor(options: MemoryStoreOptions = {}) {
    const { snapshotPath, snapshotIntervalMs } = checkOptions(options);
    this.snapshotPath = snapshotPath === undefined ? undefined : resolve(snapshotPath);
    this.#intervalMs = snapshotIntervalMs;
    this.#onSnapshotError = options.onSnapshotError ?? defaultSnapshotErrorHandler;
    this.capabilities = {
      vector: true,
      fulltext: true,
      embeddingCache: true,
      persistent: this.snapshotPath !== undefined,
      atomicWrites: true,
    };
    this.cache = new MemoryEmbeddingCache(
      (action) => this.#use(action),
      () => this.#changed(),
    );
  }

  /** Load the snapshot (when configured and present) and start the periodic saves. Idempotent. */
  async init(): Promise<void> {
    if (this.#phase === "closed") throw storeClosedError(`memory store${this.#where()}`);
    if (this.#phase === "open") return;
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async getMeta(key: string): Promise<string | undefined> {
    this.#use("read meta");
    return this.#meta.get(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.#use("write meta");
    this.#meta.set(key, value);
    this.#changed();
  }

  async reset(options: { dims: number | null }): Promise<void> {
    const { dims } = options;
    checkDims(dims);
    this.#use("reset the index");
    this.#table.clear();
    this.#dims = dims;
    this.#changed();
  }

  /** Drop every vector and prepare for `dims`; files, chunks and terms stay searchable by text. */
  async resetVectors(options: { dims: number | null }): Promise<void> {
    const { dims } = options;
    checkDims(dims);
    this.#use("reset the vectors");
    this.#table.dropVectors();
    this.#dims = dims;
    this.#changed();
  }

  async dims(): Promise<number | null> {
    this.#use("read the vector dimensions");
    return this.#dims;
  }

  async getFile(path: string): Promise<FileRecord | undefined> {
    this.#use("read a file record");
    return this.#table.getFile(path);
  }

  async listFiles(filter?: { source?: Source }): Promise<FileRecord[]> {
    this.#use("list files");
    return this.#table.listFiles(filter?.source);
  }

  async write(batch: StoreBatch): Promise<void> {
    this.#use("write to the index");
    this.#table.write(batch, this.#dims);
    this.#changed();
  }

  async getChunks(path: string): Promise<StoredChunk[]> {
    this.#use("read chunks");
    return this.#table.chunksOf(path).map(copyChunk);
  }

  async searchText(
    terms: readonly string[],
    k: number,
    filter?: SearchFilter,
  ): Promise<StoreHit[]> {
    this.#use("search the index");
    return this.#text.search(terms, resultLimit(k), filter).map(toHit);
  }

  async searchVector(vector: Float32Array, k: number, filter?: SearchFilter): Promise<StoreHit[]> {
    this.#use("search the index");
    if (this.#dims === null) return [];
    assertQueryDims(vector, this.#dims);
    return this.#vectors.nearest(vector, resultLimit(k), filter).map(toHit);
  }

  /** Counts; `bytes` is the snapshot file's size (0 before the first save) when there is one. */
  async stats(): Promise<StoreStats> {
    this.#use("read index statistics");
    const stats: StoreStats = {
      files: this.#table.fileCount,
      chunks: this.#table.chunkCount,
      vectors: this.#vectors.size,
    };
    if (this.snapshotPath !== undefined) stats.bytes = await fileSize(this.snapshotPath);
    return stats;
  }

  /**
   * Save the snapshot now (atomically: temp file, then rename), even when nothing changed.
   * Throws `CONFIG_INVALID` without `snapshotPath`, `STORE_FAILED` when the file cannot be written.
   */
  async snapshot(): Promise<void> {
    this.#use("save a snapshot");
    if (this.snapshotPath === undefined) {
      throw new EngramError("CONFIG_INVALID", "This memory store has no snapshotPath to save to.", {
        hint: "Create the store with a snapshotPath to save snapshots.",
      });
    }
    return this.#save(true);
  }

  /** Stop the periodic saves, save a final snapshot if anything changed, and release the data. */
  async close(): Promise<void> {
    if (this.#closing) return this.#closing.catch(() => {});
    this.#closing = this.#close();
    return this.#closing;
  }

  async #open(): Promise<void> {
    const state =
      this.snapshotPath === undefined ? undefined : await readSnapshot(this.snapshotPath);
    if (this.#phase === "closed") throw storeClosedError(`memory store${this.#where()}`);
    if (state) this.#restore(state);
    this.#savedVersion = this.#version;
    this.#phase = "open";
    if (this.snapshotPath !== undefined && this.#intervalMs > 0) {
      this.#timer = setInterval(() => this.#autoSave(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  async #close(): Promise<void> {
    const wasOpen = this.#phase === "open";
    this.#phase = "closed";
    clearInterval(this.#timer);
    this.#timer = undefined;
    try {
      if (wasOpen && this.snapshotPath !== undefined) await this.#save(false);
      else await this.#saving;
    } finally {
      this.#table.clear();
      this.#meta.clear();
      this.cache.load([]);
    }
  }

  /** Queue a save after any save in progress; unless `force`, skip it when nothing changed. */
  #save(force: boolean): Promise<void> {
    const path = this.snapshotPath as string;
    const run = this.#saving.then(async () => {
      const version = this.#version;
      if (!force && version === this.#savedVersion) return;
      const lines = encodeSnapshot(this.#capture(), new Date());
      try {
        await writeLinesAtomically(path, lines);
      } catch (error) {
        throw snapshotUnwritableError(path, error);
      }
      this.#savedVersion = version;
    });
    this.#saving = run.catch(() => {});
    return run;
  }

  #autoSave(): void {
    if (this.#phase !== "open") return;
    this.#save(false).catch((error: EngramError) => this.#onSnapshotError(error));
  }

  /**
   * The current data, by reference. Safe to encode while later calls change the store: entries,
   * file records and cached vectors are replaced on change, never mutated.
   */
  #capture(): StoreState {
    return {
      dims: this.#dims,
      meta: [...this.#meta],
      files: this.#table.fileRecords(),
      chunks: this.#table.entries(),
      cache: this.cache.entries(),
    };
  }

  #restore(state: DecodedState): void {
    this.#dims = state.dims;
    for (const [key, value] of state.meta) this.#meta.set(key, value);
    for (const file of state.files) this.#table.put(file, state.chunks.get(file.path) ?? []);
    this.cache.load(state.cache);
  }

  #changed(): void {
    this.#version++;
  }

  /** Throw unless the store is open. */
  #use(action: string): void {
    if (this.#phase === "open") return;
    if (this.#phase === "closed") throw storeClosedError(`memory store${this.#where()}`);
    throw storeNotInitialisedError("memory store", action);
  }

  #where(): string {
    return this.snapshotPath === undefined ? "" : ` (${this.snapshotPath})`;
  }
}

function toHit({ entry, score }: Scored): StoreHit {
  return { chunk: copyChunk(entry), score };
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

function defaultSnapshotErrorHandler(error: EngramError): void {
  process.emitWarning(error.describe(), { code: "ENGRAM_SNAPSHOT_FAILED" });
}

function checkDims(dims: number | null): void {
  if (dims !== null && !(Number.isInteger(dims) && dims > 0)) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `reset: dims must be a positive integer or null, got ${dims}.`,
      { hint: "Pass the embedder's dimensions, or null for a keyword-only index." },
    );
  }
}
