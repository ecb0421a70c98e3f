import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type {
  CheckedBatch,
  EngramError,
  FileRecord,
  KeyValueStore,
  SearchFilter,
  Source,
  StoreCapabilities,
  StoreDriver,
  StoredChunk,
  StoreHit,
  StoreStats,
} from "@engram/core/driver";
import { ChunkTable } from "./chunk-table.js";
import { snapshotUnwritableError } from "./errors.js";
import { checkOptions, type MemoryStoreOptions } from "./options.js";
import { readSnapshot, writeLinesAtomically } from "./snapshot-file.js";
import { type DecodedState, encodeSnapshot, type StoreState } from "./snapshot-format.js";

/**
 * The in-memory store's driver: a {@link ChunkTable} (files, chunks and engram's in-memory index
 * over them), meta and a key-value map, all in this process's memory; with `snapshotPath`, a
 * JSON Lines snapshot loaded on open and saved on close, on demand and periodically.
 *
 * Every method works synchronously on the in-memory data (and resolves at once), so concurrent
 * calls never see a half-applied write. One process per snapshot file: two stores saving to one
 * file overwrite each other's snapshots (the last save wins).
 */
export class MemoryDriver implements StoreDriver {
  readonly kind = "memory";
  readonly name: string;
  readonly capabilities: StoreCapabilities;
  readonly completeTies = true;
  readonly keyValue: KeyValueStore;
  /** The snapshot file (absolute), or undefined when the store never touches the disk. */
  readonly snapshotPath: string | undefined;

  readonly #intervalMs: number;
  readonly #onSnapshotError: (error: EngramError) => void;
  readonly #table = new ChunkTable();
  readonly #meta = new Map<string, string>();
  readonly #kv = new Map<string, Uint8Array>();
  #dims: number | null = null;
  #timer: NodeJS.Timeout | undefined;
  #open = false;
  /** Bumped by every change; a snapshot is due while it differs from `#savedVersion`. */
  #version = 0;
  #savedVersion = 0;
  /** The last save in progress: saves run one after another, never interleaved. */
  #saving: Promise<void> = Promise.resolve();

  constructor(options: MemoryStoreOptions = {}) {
    const { snapshotPath, snapshotIntervalMs } = checkOptions(options);
    this.snapshotPath = snapshotPath === undefined ? undefined : resolve(snapshotPath);
    this.name =
      this.snapshotPath === undefined ? "memory store" : `memory store (${this.snapshotPath})`;
    this.#intervalMs = snapshotIntervalMs;
    this.#onSnapshotError = options.onSnapshotError ?? defaultSnapshotErrorHandler;
    this.capabilities = {
      vector: true,
      fulltext: true,
      keyValue: true,
      persistent: this.snapshotPath !== undefined,
      atomicWrites: true,
    };
    this.keyValue = new MapKeyValue(this.#kv, () => this.#changed());
  }

  async open(): Promise<void> {
    const state =
      this.snapshotPath === undefined ? undefined : await readSnapshot(this.snapshotPath);
    if (state) this.#restore(state);
    this.#savedVersion = this.#version;
    this.#open = true;
    if (this.snapshotPath !== undefined && this.#intervalMs > 0) {
      this.#timer = setInterval(() => this.#autoSave(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  /** Stop the periodic saves, save a final snapshot if anything changed, and release the data. */
  async close(): Promise<void> {
    this.#open = false;
    clearInterval(this.#timer);
    this.#timer = undefined;
    try {
      if (this.snapshotPath !== undefined) await this.#save(false);
      else await this.#saving;
    } finally {
      this.#table.clear();
      this.#meta.clear();
      this.#kv.clear();
    }
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.#meta.get(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.#meta.set(key, value);
    this.#changed();
  }

  async reset(dims: number | null): Promise<void> {
    this.#table.clear();
    this.#dims = dims;
    this.#changed();
  }

  /** Drop every vector and prepare for `dims`; files, chunks and terms stay searchable by text. */
  async resetVectors(dims: number | null): Promise<void> {
    this.#table.dropVectors();
    this.#dims = dims;
    this.#changed();
  }

  async dims(): Promise<number | null> {
    return this.#dims;
  }

  async getFile(path: string): Promise<FileRecord | undefined> {
    return this.#table.getFile(path);
  }

  async listFiles(source: Source | undefined): Promise<FileRecord[]> {
    return this.#table.listFiles(source);
  }

  async write(batch: CheckedBatch): Promise<void> {
    this.#table.write(batch);
    this.#changed();
  }

  async getChunks(path: string): Promise<StoredChunk[]> {
    return this.#table.chunksOf(path);
  }

  async searchText(
    terms: readonly string[],
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]> {
    return this.#hits(this.#table.index.searchText(terms, limit, filter));
  }

  async searchVector(
    vector: Float32Array,
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]> {
    return this.#hits(await this.#table.index.searchVector(vector, limit, filter));
  }

  /** Counts; `bytes` is the snapshot file's size (0 before the first save) when there is one. */
  async stats(): Promise<StoreStats> {
    const stats: StoreStats = {
      files: this.#table.fileCount,
      chunks: this.#table.chunkCount,
      vectors: this.#table.vectorCount,
    };
    if (this.snapshotPath !== undefined) stats.bytes = await fileSize(this.snapshotPath);
    return stats;
  }

  /** Save the snapshot now (atomically), even when nothing changed. */
  snapshot(): Promise<void> {
    return this.#save(true);
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
    if (!this.#open) return;
    this.#save(false).catch((error: EngramError) => this.#onSnapshotError(error));
  }

  /**
   * The current data, by reference. Safe to encode while later calls change the store: records
   * and values are replaced on change, never mutated.
   */
  #capture(): StoreState {
    return {
      dims: this.#dims,
      meta: [...this.#meta],
      files: this.#table.fileRecords(),
      chunks: this.#table.records(),
      keyValue: [...this.#kv],
    };
  }

  #restore(state: DecodedState): void {
    this.#dims = state.dims;
    for (const [key, value] of state.meta) this.#meta.set(key, value);
    for (const file of state.files) this.#table.put(file, state.chunks.get(file.path) ?? []);
    for (const [key, value] of state.keyValue) this.#kv.set(key, value);
  }

  #hits(hits: ReadonlyArray<{ chunk: { id: string }; score: number }>): StoreHit[] {
    const chunks = new Map(
      this.#table.chunksById(hits.map((hit) => hit.chunk.id)).map((chunk) => [chunk.id, chunk]),
    );
    return hits.flatMap(({ chunk, score }) => {
      const found = chunks.get(chunk.id);
      return found ? [{ chunk: found, score }] : [];
    });
  }

  #changed(): void {
    this.#version++;
  }
}

/** The key-value map in a `Map` (values copied in and out). */
class MapKeyValue implements KeyValueStore {
  constructor(
    private readonly map: Map<string, Uint8Array>,
    private readonly changed: () => void,
  ) {}

  async get(keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    for (const key of keys) {
      const value = this.map.get(key);
      if (value) found.set(key, value.slice());
    }
    return found;
  }

  async set(entries: ReadonlyArray<readonly [string, Uint8Array]>): Promise<void> {
    for (const [key, value] of entries) this.map.set(key, value.slice());
    this.changed();
  }

  async deletePrefix(prefix: string): Promise<number> {
    let deleted = 0;
    for (const key of [...this.map.keys()]) {
      if (key.startsWith(prefix)) {
        this.map.delete(key);
        deleted++;
      }
    }
    if (deleted) this.changed();
    return deleted;
  }

  async count(prefix: string): Promise<number> {
    if (prefix === "") return this.map.size;
    let count = 0;
    for (const key of this.map.keys()) if (key.startsWith(prefix)) count++;
    return count;
  }
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
