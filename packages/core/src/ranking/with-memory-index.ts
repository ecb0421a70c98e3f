import { resultLimit } from "../driver/checks.js";
import { compareChunkOrder } from "../driver/chunk-order.js";
import type { MemoryStore, StoreFactory } from "../driver/contract.js";
import type {
  FileRecord,
  SearchFilter,
  Source,
  StoreBatch,
  StoredChunk,
  StoreHit,
  StoreStats,
} from "../driver/records.js";
import { type IndexedChunk, type IndexHit, InMemoryIndex } from "./in-memory-index.js";
import { KeptChunks } from "./kept-chunks.js";
import type { VectorKernel } from "./vector-kernel.js";

/** How {@link withMemoryIndex} keeps its copy. */
export interface MemoryIndexOptions {
  /**
   * Chunks above which the copy loads in the background while the store answers (default 2,000;
   * a smaller index loads inside the first search, which it holds up by a few ms).
   */
  backgroundAbove?: number;
  /** The int8 vector scan (default: USearch's SIMD kernel when installed, else JavaScript). */
  kernel?: VectorKernel;
}

/** A store with the in-memory index in front: see {@link withMemoryIndex}. */
export interface MemoryIndexedStore extends MemoryStore {
  /** Resolves when no load of the copy is under way (a benchmark awaits it to time the steady state). */
  indexReady(): Promise<void>;
  /** True while searches are answered from the copy in memory (false: by the store). */
  readonly indexLoaded: boolean;
  /**
   * Load the copy now, unless it is loaded or loading, and resolve once no load is under way; true
   * when searches are then answered from it. A long-lived process calls it right after opening
   * (core's `warmUp`), so that its first searches neither wait for the load nor start it.
   */
  loadIndex(): Promise<boolean>;
}

const DEFAULT_BACKGROUND_ABOVE = 2000;
/** Wait before a load starts again after a write overtook one (ms), doubling to a minute. */
const RETRY_MS = 250;
/** Wait before the chunk count of an index over `memoryIndexMaxChunks` is read again (ms). */
const OVER_LIMIT_RECHECK_MS = 60_000;
const MAX_RETRY_MS = 60_000;

/**
 * `store` with engram's {@link InMemoryIndex} in front: searches are answered from a copy of the
 * index in this process's memory (RAM speed, the same ranking: the in-memory index is the
 * reference every store's ranking is held to). The copy loads, a page at a time between turns of
 * the event loop, on the first search; until it is loaded the store answers. It follows this
 * process's writes and is dropped and loaded again after another process's (the store's
 * `generation()` tells). For long-lived processes (`engram watch`, `mcp`, `ui`, a server): a
 * one-shot process would pay for a load it never uses.
 *
 * A store without `generation`, `scanChunks` (or `scanTermCounts`), `getChunksById` and
 * `getVectors` is returned with
 * only `indexReady` added (the in-memory store is such an index already). A store that also has
 * `scanTermCounts` loads through it (no string per term occurrence, postings written once). While
 * the store holds more chunks than its `memoryIndexMaxChunks`, no copy is made and the store
 * answers (the count is read again once a minute). A store whose reads by id are slow
 * (`memoryIndexKeepsChunks`) has its scanned chunks and their vectors kept with the copy, which
 * then reads neither back for a search.
 */
export function withMemoryIndex(
  store: MemoryStore,
  options: MemoryIndexOptions = {},
): MemoryIndexedStore {
  const scans = store.scanChunks || store.scanTermCounts;
  if (!store.generation || !scans || !store.getChunksById || !store.getVectors) {
    return Object.assign(store, {
      indexReady: async () => {},
      loadIndex: async () => false,
      indexLoaded: false,
    });
  }
  return new MemoryIndexFront(store, options);
}

/** A store factory whose stores have the in-memory index in front (see {@link withMemoryIndex}). */
export function withMemoryIndexFactory(
  factory: StoreFactory,
  options: MemoryIndexOptions = {},
): StoreFactory {
  return async (context) => withMemoryIndex(await factory(context), options);
}

/** The copy and the store generation it reflects. */
interface Copy {
  index: InMemoryIndex;
  generation: number;
  /** The copy's chunks, when the store keeps them in memory (`memoryIndexKeepsChunks`). */
  kept: KeptChunks | undefined;
}

class MemoryIndexFront implements MemoryIndexedStore {
  readonly kind: string;
  readonly capabilities: MemoryStore["capabilities"];
  readonly keyValue?: MemoryStore["keyValue"];
  readonly refresh?: () => Promise<boolean>;
  readonly resetVectors?: (options: { dims: number | null }) => Promise<void>;
  readonly #store: MemoryStore;
  readonly #options: MemoryIndexOptions;
  #copy: Copy | undefined;
  #loading: Promise<void> | undefined;
  /** Whether the load under way (or the last one) is small enough for a search to wait for. */
  #inline: Promise<boolean> = Promise.resolve(false);
  #retryAt = 0;
  #retryMs = RETRY_MS;
  #closed = false;

  constructor(store: MemoryStore, options: MemoryIndexOptions) {
    this.#store = store;
    this.#options = options;
    this.kind = store.kind;
    this.capabilities = store.capabilities;
    if (store.keyValue) this.keyValue = store.keyValue;
    const { refresh, resetVectors } = store;
    if (refresh) {
      this.refresh = async () => {
        const replaced = await refresh.call(store);
        if (replaced) this.#copy = undefined;
        return replaced;
      };
    }
    if (resetVectors) {
      this.resetVectors = async (options) => {
        this.#copy = undefined;
        await resetVectors.call(store, options);
      };
    }
  }

  get indexLoaded(): boolean {
    return this.#copy !== undefined;
  }

  init(): Promise<void> {
    return this.#store.init();
  }

  getMeta(key: string): Promise<string | undefined> {
    return this.#store.getMeta(key);
  }

  setMeta(key: string, value: string): Promise<void> {
    return this.#store.setMeta(key, value);
  }

  async reset(options: { dims: number | null }): Promise<void> {
    this.#copy = undefined;
    await this.#store.reset(options);
  }

  dims(): Promise<number | null> {
    return this.#store.dims();
  }

  getFile(path: string): Promise<FileRecord | undefined> {
    return this.#store.getFile(path);
  }

  listFiles(filter?: { source?: Source }): Promise<FileRecord[]> {
    return this.#store.listFiles(filter);
  }

  getChunks(path: string): Promise<StoredChunk[]> {
    return this.#store.getChunks(path);
  }

  stats(): Promise<StoreStats> {
    return this.#store.stats();
  }

  /**
   * Write to the store, then to the copy, when the store's generation moved by this write alone
   * (otherwise another process wrote too: the copy is dropped and loads again on a later search).
   * A write that failed drops the copy: a store whose writes are not atomic may have kept part of
   * it, under a generation that may not have moved.
   */
  async write(batch: StoreBatch): Promise<void> {
    const copy = this.#copy;
    const before = copy ? await this.#generation() : undefined;
    try {
      await this.#store.write(batch);
    } catch (error) {
      if (this.#copy === copy) this.#copy = undefined;
      throw error;
    }
    if (!copy || this.#copy !== copy) return;
    const after = await this.#generation();
    if (before !== copy.generation || after !== copy.generation + 1) {
      this.#copy = undefined;
      return;
    }
    // The store refused nothing, so the batch is valid: the same paths go, the last upsert wins.
    const upserts = new Map((batch.upserts ?? []).map((upsert) => [upsert.file.path, upsert]));
    const removed = new Set([...(batch.deletes ?? []), ...upserts.keys()]);
    const added = [...upserts.values()].flatMap((upsert) => upsert.chunks);
    copy.index.removePaths(removed);
    copy.index.add(added);
    copy.kept?.removePaths(removed);
    copy.kept?.add(added);
    copy.generation = after;
  }

  async searchText(
    terms: readonly string[],
    k: number,
    filter?: SearchFilter,
  ): Promise<StoreHit[]> {
    const copy = await this.#current();
    const index = copy?.index;
    if (!index) return this.#store.searchText(terms, k, filter);
    const limit = Math.min(resultLimit(k), index.size);
    return limit > 0 ? this.#hits(copy, index.searchText(terms, limit, filter)) : [];
  }

  async searchVector(vector: Float32Array, k: number, filter?: SearchFilter): Promise<StoreHit[]> {
    const copy = await this.#current();
    const index = copy?.index;
    // The store checks dimensions and knows an index without vectors.
    if (!index || index.dims === null || vector.length !== index.dims) {
      return this.#store.searchVector(vector, k, filter);
    }
    const limit = Math.min(resultLimit(k), index.vectors);
    return limit > 0 ? this.#hits(copy, await index.searchVector(vector, limit, filter)) : [];
  }

  async indexReady(): Promise<void> {
    while (this.#loading) await this.#loading;
  }

  async loadIndex(): Promise<boolean> {
    await this.#current(); // starts a load when the copy is missing or stale
    await this.indexReady();
    return this.indexLoaded;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#copy = undefined;
    await this.#store.close();
  }

  #generation(): Promise<number> {
    return (this.#store.generation as () => Promise<number>).call(this.#store);
  }

  /**
   * The copy when it reflects the store's current generation; otherwise undefined (the store
   * answers) after starting a load, which this search awaits when the index is small.
   */
  async #current(): Promise<Copy | undefined> {
    if (this.#closed) return undefined;
    // No copy and none to load for now (a load failed, or the index is over the store's
    // `memoryIndexMaxChunks`): the store answers, without a generation check.
    if (!this.#copy && !this.#loading && performance.now() < this.#retryAt) return undefined;
    const generation = await this.#generation();
    const copy = this.#copy;
    if (copy?.generation === generation) return copy;
    this.#copy = undefined;
    if (!this.#loading) {
      if (performance.now() < this.#retryAt) return undefined;
      // Started before anything is awaited: both sides of a hybrid search get here at once, and
      // each starting a load of its own doubled the load's CPU and memory.
      const stats = this.#store.stats();
      this.#load(generation, stats);
      const above = this.#options.backgroundAbove ?? DEFAULT_BACKGROUND_ABOVE;
      this.#inline = stats.then(({ chunks }) => chunks <= above).catch(() => false);
    }
    if (!(await this.#inline)) return undefined;
    await this.#loading;
    const loaded = this.#copy as Copy | undefined;
    return loaded?.generation === generation ? loaded : undefined;
  }

  /** Load the copy at `generation`; kept only if no write changed the store meanwhile. */
  #load(generation: number, stats: Promise<StoreStats>): void {
    const store = this.#store;
    const run = async () => {
      let current = false;
      try {
        const { chunks, vectors } = await stats;
        const max = store.memoryIndexMaxChunks;
        if (max !== undefined && chunks > max) {
          // Too big to copy: look again now and then, in case the index shrank.
          this.#retryAt = performance.now() + OVER_LIMIT_RECHECK_MS;
          return;
        }
        // Kept chunks come whole only from `scanChunks`; the index then keeps the vectors too.
        const kept =
          store.memoryIndexKeepsChunks && store.scanChunks ? new KeptChunks() : undefined;
        const getVectors = store.getVectors as (
          ids: readonly string[],
        ) => Promise<Map<string, Float32Array>>;
        const index = new InMemoryIndex({
          expectedVectors: vectors,
          ...(kept
            ? {}
            : { exactVectors: async (ids) => (await getVectors.call(store, ids)) ?? new Map() }),
          ...(this.#options.kernel ? { kernel: this.#options.kernel } : {}),
        });
        // Between pages, searches (answered by the store meanwhile) and writes run.
        const turn = () => new Promise((resolve) => setImmediate(resolve));
        const scanCounts = kept ? undefined : store.scanTermCounts;
        if (scanCounts) {
          // Two passes, the first for the layout of the postings (see `InMemoryIndex.loadTerms`).
          for await (const page of scanCounts.call(store, { names: true })) {
            if (this.#closed) return;
            index.loadTerms(page);
            await turn();
          }
          for await (const page of scanCounts.call(store, { chunks: true })) {
            if (this.#closed) return;
            index.loadChunks(page);
            await turn();
          }
          index.loadDone();
        } else {
          const pages = (store.scanChunks as () => AsyncIterable<IndexedChunk[]>).call(store);
          for await (const page of pages) {
            if (this.#closed) return;
            index.add(page);
            kept?.add(page);
            await turn();
          }
        }
        current = !this.#closed && (await this.#generation()) === generation;
        if (current) this.#copy = { index, generation, kept };
      } catch {
        current = false; // the store failed or closed under the scan: it keeps answering
      }
      if (current) {
        this.#retryMs = RETRY_MS;
      } else {
        this.#retryAt = performance.now() + this.#retryMs;
        this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
      }
    };
    const loading = run().finally(() => {
      if (this.#loading === loading) this.#loading = undefined;
    });
    this.#loading = loading;
  }

  /**
   * The chunks of the copy's hits, in the contract's order: kept ones from memory, the others
   * read from the store.
   */
  async #hits(copy: Copy, hits: IndexHit[]): Promise<StoreHit[]> {
    if (!hits.length) return [];
    const byId = new Map<string, StoredChunk>();
    const missing: string[] = [];
    for (const { chunk } of hits) {
      const kept = copy.kept?.get(chunk.id);
      if (kept) byId.set(chunk.id, kept);
      else missing.push(chunk.id);
    }
    if (missing.length) {
      const getChunksById = this.#store.getChunksById as (ids: string[]) => Promise<StoredChunk[]>;
      for (const chunk of await getChunksById.call(this.#store, missing)) byId.set(chunk.id, chunk);
    }
    const out: StoreHit[] = [];
    for (const hit of hits) {
      const chunk = byId.get(hit.chunk.id);
      if (chunk) out.push({ chunk, score: hit.score });
    }
    return out.sort((a, b) => b.score - a.score || compareChunkOrder(a.chunk, b.chunk));
  }
}
