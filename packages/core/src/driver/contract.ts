import type { IndexedChunk, TermCountsPage, TermCountsScan } from "../ranking/in-memory-index.js";
import type {
  FileRecord,
  SearchFilter,
  Source,
  StoreBatch,
  StoredChunk,
  StoreHit,
  StoreStats,
} from "./records.js";

/** What a store can do. Core checks these instead of catching "not supported" errors. */
export interface StoreCapabilities {
  /** `searchVector` works (after `reset` with `dims`). */
  vector: boolean;
  /** `searchText` works. */
  fulltext: boolean;
  /** `keyValue` is present (core keeps its embedding cache there). */
  keyValue: boolean;
  /** Data survives `close()` and a new instance over the same location. */
  persistent: boolean;
  /** `write` is all-or-nothing. If false, the store writes chunks before file records, so a crash leaves a file looking stale (and it is re-indexed) rather than looking done. */
  atomicWrites: boolean;
}

/**
 * A plain, persistent key → bytes map a store keeps beside the index (it survives `reset`). Core
 * keeps its embedding cache in it and decides what stays (see `EmbeddingCache`); the store only
 * stores. Keys are short strings; values are opaque bytes.
 */
export interface KeyValueStore {
  /** The values of the keys present (absent keys are absent from the map). */
  get(keys: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Insert or replace. */
  set(entries: ReadonlyArray<readonly [key: string, value: Uint8Array]>): Promise<void>;
  /** Remove every key that starts with `prefix` (`""`: every key); returns how many went. */
  deletePrefix(prefix: string): Promise<number>;
  /** Keys that start with `prefix` (`""`: every key). */
  count(prefix: string): Promise<number>;
}

/**
 * The storage contract every driver implements (drivers usually through `defineStore`, which
 * does the checks every driver shares). Core owns analysis, chunking, embedding, ranking and
 * fusion; a store keeps files, chunks, terms and vectors, and answers two primitive searches with
 * engram's ranking (BM25 of `ranking/bm25.ts`, cosine similarity), natively or through core's
 * `InMemoryIndex`.
 *
 * Every method has the same semantics on every driver; `@engram/core/testing`'s conformance kit
 * proves it. Methods may be called concurrently for reads; core never issues two `write` or
 * `reset` calls at once on one store.
 */
export interface MemoryStore {
  /** Driver name shown by `engram status` (e.g. `sqlite`). */
  readonly kind: string;
  readonly capabilities: StoreCapabilities;
  /** Present when `capabilities.keyValue`. */
  readonly keyValue?: KeyValueStore;

  /** Create schema if needed. Idempotent. Must be called (and awaited) before anything else. */
  init(): Promise<void>;

  /** Read a meta value (e.g. the index identity). */
  getMeta(key: string): Promise<string | undefined>;
  /** Write a meta value. */
  setMeta(key: string, value: string): Promise<void>;
  /**
   * Optional. The meta values of `keys` read at once (absent keys are absent from the map), as
   * fresh as `getMeta`'s: one round trip or version check where `getMeta` would take one per key.
   * Core reads what every search needs (index identity, owed vectors, last sync) through it.
   */
  getMetas?(keys: readonly string[]): Promise<Map<string, string>>;

  /**
   * Drop every file and chunk and prepare for vectors of `dims` dimensions (null: no vectors).
   * Meta and the key-value map survive. Used when the index identity changes.
   */
  reset(options: { dims: number | null }): Promise<void>;
  /**
   * Optional. Drop every vector and prepare for vectors of `dims` dimensions (null: none); files,
   * chunks and their terms stay, so keyword search keeps answering while core writes the new
   * vectors file by file. Core switches an index to another embedding model with it; a store
   * without it is `reset` and rebuilt instead (from the embedding cache, where it can).
   */
  resetVectors?(options: { dims: number | null }): Promise<void>;
  /** Dimensions the store is prepared for, as set by the last `reset` or `resetVectors` (null: none). */
  dims(): Promise<number | null>;

  /** One file's record, if indexed. */
  getFile(path: string): Promise<FileRecord | undefined>;
  /** All file records, optionally of one source. Order unspecified. */
  listFiles(filter?: { source?: Source }): Promise<FileRecord[]>;

  /**
   * Apply deletes, then upserts, then touches. An upsert replaces all of that path's chunks.
   * Chunks with a non-null `embedding` must have exactly `dims()` dimensions.
   */
  write(batch: StoreBatch): Promise<void>;

  /** Chunks of one file, ordered by start line. */
  getChunks(path: string): Promise<StoredChunk[]>;

  /**
   * BM25 over analysed terms (engram's, see `ranking/bm25.ts`): a chunk matches if it holds ANY
   * of `terms` (never all-required); up to `k` hits, best first, `score` > 0. Empty `terms` or `k`
   * < 1 gives no hits. Equal scores are ordered by path, then start line.
   */
  searchText(terms: readonly string[], k: number, filter?: SearchFilter): Promise<StoreHit[]>;

  /**
   * Nearest chunks by cosine similarity, up to `k`, best first. Chunks without vectors never match.
   * Throws `STORE_DIMS_MISMATCH` when `vector` has other dimensions than `dims()`; returns no hits
   * when the store has no vector space (`dims()` is null). Ties as in `searchText`.
   */
  searchVector(vector: Float32Array, k: number, filter?: SearchFilter): Promise<StoreHit[]>;

  stats(): Promise<StoreStats>;

  /**
   * Optional, for core's `withMemoryIndex`: a number that grows by exactly one with each `write`,
   * `reset` and `resetVectors` of this instance, and changes with any other instance's or
   * process's change to the store. A copy of the index taken at one value is current while the
   * store still answers that value.
   */
  generation?(): Promise<number>;
  /**
   * Optional, for `withMemoryIndex`: every chunk with its analysed terms (repeats kept; order
   * may differ) and vector, a page at a time. Pages may be read at different moments: the
   * caller compares {@link generation} before and after.
   */
  scanChunks?(): AsyncIterable<IndexedChunk[]>;
  /**
   * Optional, for `withMemoryIndex`, which then loads through it rather than {@link scanChunks}:
   * the same chunks, in an order that stays the same from one scan to the next while the store
   * does not change, with each chunk's terms as the store's own term ids and their counts (see
   * {@link TermCountsPage}: no string per term occurrence). With `names`, each id is named the
   * first time the scan meets it; with `chunks`, each page carries its chunks' locations, labels
   * and vectors. The caller scans twice (names, then chunks) and compares {@link generation}
   * before and after.
   */
  scanTermCounts?(options: TermCountsScan): AsyncIterable<TermCountsPage>;
  /** Optional, for `withMemoryIndex`: the chunks with these ids (absent ids are left out). */
  getChunksById?(ids: readonly string[]): Promise<StoredChunk[]>;
  /** Optional, for `withMemoryIndex`: the vectors of these chunk ids (absent: no vector). */
  getVectors?(ids: readonly string[]): Promise<Map<string, Float32Array>>;
  /**
   * Optional, for `withMemoryIndex`: the most chunks a store may hold for a copy of its index to
   * be loaded into a process's memory; while it holds more, it answers searches itself (a copy
   * already loaded keeps following this process's writes). Absent: no limit. A
   * store whose own indexes serve a large index well, and whose rows cost much memory to copy,
   * sets one (store-lancedb).
   */
  readonly memoryIndexMaxChunks?: number;
  /**
   * Optional, for `withMemoryIndex`: true when reading chunks or vectors by id costs this store a
   * query or a request each, however few rows it returns (store-lancedb: 2–7 ms of CPU). The copy
   * then keeps the chunks {@link scanChunks} gave it (which must be whole: text, headings and
   * hash too) and their float32 vectors, follows this process's writes, and reads by id only what
   * it lacks, instead of calling {@link getChunksById} for every search's hits and
   * {@link getVectors} for every vector search's candidates. It costs the memory of the chunks'
   * text and of four bytes a dimension for each vector.
   */
  readonly memoryIndexKeepsChunks?: boolean;

  /**
   * Optional. Make sure the storage this store has open is still the one at its location and is
   * usable: reopen it when it was deleted or replaced underneath (`.engram/` removed while a
   * watcher runs, another process rebuilt it), and move a damaged one aside for an empty one
   * (recording a {@link StoreRecovery} under `RECOVERY_META_KEY`). Resolves true when the store
   * now holds other (possibly no) data, so the caller syncs from scratch. Core calls it before
   * each sync, search and status, and once more after one of them failed.
   */
  refresh?(): Promise<boolean>;

  /** Release resources. Idempotent. */
  close(): Promise<void>;
}

/**
 * How core obtains a store for a workspace. `indexDir` is `<workspace>/.engram`, created already;
 * drivers keep their files inside it unless configured otherwise.
 */
export type StoreFactory = (context: {
  workspace: string;
  indexDir: string;
}) => MemoryStore | Promise<MemoryStore>;
