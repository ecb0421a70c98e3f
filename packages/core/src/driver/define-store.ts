import { EngramError } from "../errors.js";
import type { IndexedChunk, TermCountsPage, TermCountsScan } from "../ranking/in-memory-index.js";
import { assertChunksFit, assertQueryDims, assertUniqueChunkIds, resultLimit } from "./checks.js";
import { compareChunkOrder, compareHits, completeTopK } from "./chunk-order.js";
import type { KeyValueStore, MemoryStore, StoreCapabilities } from "./contract.js";
import { matchesNothing } from "./filter.js";
import type {
  ChunkRecord,
  FileRecord,
  SearchFilter,
  Source,
  StoreBatch,
  StoredChunk,
  StoreHit,
  StoreStats,
} from "./records.js";
import { storeClosedError, storeNotInitialisedError } from "./state-errors.js";

/**
 * A batch as {@link defineStore} hands it to a driver: checked (every chunk belongs to its file,
 * fits the store's dimensions and has an id no other chunk of the batch has) and normalised.
 * Apply it as: remove the chunks of `removed`, delete the file records of `deleted`, write the
 * `upserts`, then set the modification time of the `touches` whose record exists.
 */
export interface CheckedBatch {
  /** Paths whose chunks go (deleted or upserted), each once. */
  removed: readonly string[];
  /** Paths whose file record goes (deleted and not upserted again), each once. */
  deleted: readonly string[];
  /** Files to write with their chunks, one per path (a path upserted twice: the last wins). */
  upserts: ReadonlyArray<{ file: FileRecord; chunks: readonly ChunkRecord[] }>;
  touches: readonly FileRecord[];
}

/**
 * What a store driver implements: only what its backend does. {@link defineStore} turns it into
 * a {@link MemoryStore}, doing what every driver shares once: the open/closed guards, argument
 * checks, dimension checks, the contract's tie order and complete ties at the cut-off, and
 * turning backend errors into `EngramError`s (through {@link StoreDriver.failure}).
 *
 * Methods are called only while the store is open, with checked arguments: `limit` ≥ 1, `terms`
 * unique and non-empty, a query vector of `dims()` dimensions (not all zeros), a filter that can
 * match (no empty `tiers` or `sources` list), `dims` a positive integer or null.
 */
export interface StoreDriver {
  /** Driver name shown by `engram status` (e.g. `sqlite`). */
  readonly kind: string;
  /** How messages name this store, e.g. `SQLite store /w/.engram/index.sqlite`. */
  readonly name: string;
  readonly capabilities: StoreCapabilities;
  /**
   * True when both searches already return the contract's top `limit`: equal scores in chunk
   * order, the tie at the cut-off resolved. Otherwise one hit more is asked for, and more while
   * the tie at the cut-off may continue (`completeTopK`).
   */
  readonly completeTies?: boolean;
  /** The key → bytes map, when `capabilities.keyValue` (guarded like every other method). */
  readonly keyValue?: KeyValueStore;
  /** Open the backend (create the schema if needed). Called once. */
  open(): Promise<void>;
  /** Release the backend. Called once, after a successful `open`. */
  close(): Promise<void>;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  reset(dims: number | null): Promise<void>;
  resetVectors?(dims: number | null): Promise<void>;
  dims(): Promise<number | null>;
  getFile(path: string): Promise<FileRecord | undefined>;
  listFiles(source: Source | undefined): Promise<FileRecord[]>;
  /** Apply a checked batch (see {@link CheckedBatch}); refuse an id another path's chunk holds. */
  write(batch: CheckedBatch): Promise<void>;
  /** A file's chunks, in any order. */
  getChunks(path: string): Promise<StoredChunk[]>;
  /**
   * Up to `limit` hits by engram's BM25, best first; the engine may keep any part of a tie at
   * the cut-off (the caller completes it).
   */
  searchText(
    terms: readonly string[],
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]>;
  /** Up to `limit` nearest hits by cosine similarity, best first (ties as in `searchText`). */
  searchVector(
    vector: Float32Array,
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]>;
  stats(): Promise<StoreStats>;
  refresh?(): Promise<boolean>;
  /** Optional, for core's `withMemoryIndex`: see {@link MemoryStore.generation}. */
  generation?(): Promise<number>;
  /** Optional, for `withMemoryIndex`: see {@link MemoryStore.scanChunks} (each page is guarded). */
  scanChunks?(): AsyncIterable<IndexedChunk[]>;
  /** Optional, for `withMemoryIndex`: see {@link MemoryStore.scanTermCounts} (pages guarded). */
  scanTermCounts?(options: TermCountsScan): AsyncIterable<TermCountsPage>;
  /** Optional, for `withMemoryIndex`: see {@link MemoryStore.getChunksById}. */
  getChunksById?(ids: readonly string[]): Promise<StoredChunk[]>;
  /** Optional, for `withMemoryIndex`: see {@link MemoryStore.getVectors}. */
  getVectors?(ids: readonly string[]): Promise<Map<string, Float32Array>>;
  /** Optional, for `withMemoryIndex`: see {@link MemoryStore.memoryIndexMaxChunks}. */
  readonly memoryIndexMaxChunks?: number;
  /** Optional, for `withMemoryIndex`: see {@link MemoryStore.memoryIndexKeepsChunks}. */
  readonly memoryIndexKeepsChunks?: boolean;
  /**
   * The `EngramError` (code, message, hint) for an error the backend threw while doing `action`
   * (e.g. "search the index"), or undefined to let it pass as it is.
   */
  failure?(error: unknown, action: string): unknown;
}

type Phase = "new" | "open" | "closed";

/**
 * Runs `fn` while the store is open, with the same guards and error mapping as the contract's
 * methods (for a driver's own additions, such as a snapshot or an optimize call).
 */
export type Guarded = <T>(action: string, fn: () => Promise<T>) => Promise<T>;

/**
 * The {@link MemoryStore} of a {@link StoreDriver}: the driver does what only its backend can,
 * this does the rest the same way for every driver. `extra` adds the driver's own methods
 * (guarded by the function it is given).
 *
 * @example
 * ```ts
 * export function createMyStore(options: MyOptions): MemoryStore {
 *   return defineStore(new MyDriver(options));
 * }
 * ```
 */
export function defineStore<Extra extends object = Record<never, never>>(
  driver: StoreDriver,
  extra?: (guarded: Guarded) => Extra,
): MemoryStore & Extra {
  const store = new DefinedStore(driver);
  return Object.assign(
    store,
    extra?.((action, fn) => store.guarded(action, fn)) ?? {},
  ) as unknown as MemoryStore & Extra;
}

class DefinedStore implements MemoryStore {
  readonly kind: string;
  readonly capabilities: StoreCapabilities;
  readonly keyValue?: KeyValueStore;
  readonly refresh?: () => Promise<boolean>;
  readonly resetVectors?: (options: { dims: number | null }) => Promise<void>;
  readonly generation?: () => Promise<number>;
  readonly scanChunks?: () => AsyncIterable<IndexedChunk[]>;
  readonly scanTermCounts?: (options: TermCountsScan) => AsyncIterable<TermCountsPage>;
  readonly getChunksById?: (ids: readonly string[]) => Promise<StoredChunk[]>;
  readonly getVectors?: (ids: readonly string[]) => Promise<Map<string, Float32Array>>;
  readonly memoryIndexMaxChunks?: number;
  readonly memoryIndexKeepsChunks?: boolean;
  readonly #driver: StoreDriver;
  #phase: Phase = "new";
  #opening: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** Calls accepted while the store was open and not yet settled: `close()` waits for them. */
  readonly #running = new Set<Promise<unknown>>();

  constructor(driver: StoreDriver) {
    this.#driver = driver;
    this.kind = driver.kind;
    this.capabilities = { ...driver.capabilities };
    const kv = driver.keyValue;
    if (kv) this.keyValue = this.#guardKeyValue(kv);
    if (driver.refresh) {
      const refresh = driver.refresh.bind(driver);
      this.refresh = async () => {
        if (this.#phase !== "open") return false;
        return this.#call("reopen the index", refresh);
      };
    }
    if (driver.resetVectors) {
      const resetVectors = driver.resetVectors.bind(driver);
      this.resetVectors = async ({ dims }) => {
        this.#checkDims(dims);
        return this.#run("reset the vectors", () => resetVectors(dims));
      };
    }
    // What core's `withMemoryIndex` loads its copy of the index with, when the driver has it.
    const { generation, scanChunks, scanTermCounts, getChunksById, getVectors } = driver;
    if (generation) this.generation = () => this.#run("read meta", () => generation.call(driver));
    if (scanChunks) this.scanChunks = () => this.#pages("read chunks", scanChunks.call(driver));
    if (scanTermCounts) {
      this.scanTermCounts = (options) =>
        this.#pages("read chunks", scanTermCounts.call(driver, options));
    }
    if (getChunksById) {
      this.getChunksById = (ids) => this.#run("read chunks", () => getChunksById.call(driver, ids));
    }
    if (getVectors) {
      this.getVectors = (ids) => this.#run("read vectors", () => getVectors.call(driver, ids));
    }
    if (driver.memoryIndexMaxChunks !== undefined) {
      this.memoryIndexMaxChunks = driver.memoryIndexMaxChunks;
    }
    if (driver.memoryIndexKeepsChunks) this.memoryIndexKeepsChunks = true;
  }

  async init(): Promise<void> {
    if (this.#phase === "closed") throw storeClosedError(this.#driver.name);
    if (this.#phase === "open") return;
    this.#opening ??= this.#call("open the index", () => this.#driver.open())
      .then(() => {
        if (this.#phase === "closed") throw storeClosedError(this.#driver.name);
        this.#phase = "open";
      })
      .finally(() => {
        this.#opening = undefined;
      });
    return this.#opening;
  }

  getMeta(key: string): Promise<string | undefined> {
    return this.#run("read meta", () => this.#driver.getMeta(key));
  }

  setMeta(key: string, value: string): Promise<void> {
    return this.#run("write meta", () => this.#driver.setMeta(key, value));
  }

  async reset({ dims }: { dims: number | null }): Promise<void> {
    this.#checkDims(dims);
    return this.#run("reset the index", () => this.#driver.reset(dims));
  }

  dims(): Promise<number | null> {
    return this.#run("read the vector dimensions", () => this.#driver.dims());
  }

  getFile(path: string): Promise<FileRecord | undefined> {
    return this.#run("read a file record", () => this.#driver.getFile(path));
  }

  listFiles(filter?: { source?: Source }): Promise<FileRecord[]> {
    return this.#run("list files", () => this.#driver.listFiles(filter?.source));
  }

  write(batch: StoreBatch): Promise<void> {
    return this.#run("write to the index", async () => {
      const dims = await this.#driver.dims();
      const upserts = new Map<string, { file: FileRecord; chunks: readonly ChunkRecord[] }>();
      for (const upsert of batch.upserts ?? []) {
        assertChunksFit(upsert.file, upsert.chunks, dims);
        upserts.delete(upsert.file.path);
        upserts.set(upsert.file.path, upsert);
      }
      assertUniqueChunkIds([...upserts.values()].flatMap((upsert) => upsert.chunks));
      const deletes = [...new Set(batch.deletes ?? [])];
      await this.#driver.write({
        removed: [...new Set([...deletes, ...upserts.keys()])],
        deleted: deletes.filter((path) => !upserts.has(path)),
        upserts: [...upserts.values()],
        touches: batch.touches ?? [],
      });
    });
  }

  async getChunks(path: string): Promise<StoredChunk[]> {
    const chunks = await this.#run("read chunks", () => this.#driver.getChunks(path));
    return chunks.sort(compareChunkOrder);
  }

  searchText(terms: readonly string[], k: number, filter?: SearchFilter): Promise<StoreHit[]> {
    return this.#run("search the index", async () => {
      const unique = [...new Set(terms)].filter((term) => typeof term === "string" && term !== "");
      const limit = resultLimit(k);
      if (!unique.length || limit === 0 || !this.capabilities.fulltext) return [];
      if (matchesNothing(filter)) return [];
      return this.#top(limit, (n) => this.#driver.searchText(unique, n, filter));
    });
  }

  searchVector(vector: Float32Array, k: number, filter?: SearchFilter): Promise<StoreHit[]> {
    return this.#run("search the index", async () => {
      if (!this.capabilities.vector) return [];
      const dims = await this.#driver.dims();
      if (dims === null) return [];
      assertQueryDims(vector, dims);
      const limit = resultLimit(k);
      // A zero vector has no direction: nothing is near it.
      if (limit === 0 || matchesNothing(filter) || vector.every((x) => x === 0)) return [];
      return this.#top(limit, (n) => this.#driver.searchVector(vector, n, filter));
    });
  }

  stats(): Promise<StoreStats> {
    return this.#run("read index statistics", () => this.#driver.stats());
  }

  /** Idempotent: a second call resolves once the first is done, even when it failed. */
  close(): Promise<void> {
    if (this.#closing) return this.#closing.catch(() => {});
    this.#closing = this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const wasOpen = this.#phase === "open";
    this.#phase = "closed";
    const opening = this.#opening;
    if (opening) {
      const opened = await opening.then(
        () => true,
        () => false,
      );
      if (!opened) return;
    } else if (!wasOpen) {
      return;
    }
    await Promise.allSettled(this.#running);
    await this.#call("close the index", () => this.#driver.close());
  }

  /** The top `limit` hits in the contract's order. */
  async #top(limit: number, fetch: (limit: number) => Promise<StoreHit[]>): Promise<StoreHit[]> {
    if (this.#driver.completeTies) return (await fetch(limit)).sort(compareHits).slice(0, limit);
    return completeTopK(limit, fetch, compareHits);
  }

  #checkDims(dims: number | null): void {
    if (dims !== null && !(Number.isInteger(dims) && dims > 0)) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `reset: dims must be a positive integer or null, got ${dims}.`,
        { hint: "Pass the embedder's dimensions, or null for a keyword-only index." },
      );
    }
    if (dims !== null && !this.capabilities.vector) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `reset: the ${this.#driver.name} has no vector search.`,
        {
          hint: "Open it with vectors enabled, or reset with dims null for a keyword-only index.",
        },
      );
    }
  }

  /** `pages`, each page read while the store is open, with the same error mapping. */
  async *#pages<T>(action: string, pages: AsyncIterable<T>): AsyncIterable<T> {
    const iterator = pages[Symbol.asyncIterator]();
    try {
      for (;;) {
        const page = await this.#run(action, () => iterator.next());
        if (page.done) return;
        yield page.value;
      }
    } finally {
      await iterator.return?.();
    }
  }

  /** See {@link Guarded}. */
  guarded<T>(action: string, fn: () => Promise<T>): Promise<T> {
    return this.#run(action, fn);
  }

  /** Run `fn` while the store is open; backend errors become `EngramError`s. */
  #run<T>(action: string, fn: () => Promise<T>): Promise<T> {
    if (this.#phase === "closed") return Promise.reject(storeClosedError(this.#driver.name));
    if (this.#phase !== "open") {
      return Promise.reject(storeNotInitialisedError(this.#driver.name, action));
    }
    const running = this.#call(action, fn);
    this.#running.add(running);
    const done = () => this.#running.delete(running);
    running.then(done, done);
    return running;
  }

  async #call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw this.#driver.failure?.(error, action) ?? error;
    }
  }

  #guardKeyValue(kv: KeyValueStore): KeyValueStore {
    const checkPrefix = (prefix: string) => {
      if (typeof prefix !== "string") {
        throw new EngramError("INVALID_ARGUMENT", "a key prefix must be a string", {
          hint: 'Pass "" for every key.',
        });
      }
    };
    return {
      get: (keys) => this.#run("read the key-value map", () => kv.get([...new Set(keys)])),
      set: (entries) =>
        entries.length
          ? this.#run("write the key-value map", () => kv.set(entries))
          : this.#run("write the key-value map", async () => undefined),
      deletePrefix: (prefix) => {
        checkPrefix(prefix);
        return this.#run("clear the key-value map", () => kv.deletePrefix(prefix));
      },
      count: (prefix) => {
        checkPrefix(prefix);
        return this.#run("read the key-value map", () => kv.count(prefix));
      },
    };
  }
}
