import {
  assertChunksFit,
  assertQueryDims,
  assertUniqueChunkIds,
  compareChunkOrder,
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
} from "@engram/core/driver";
import { QdrantClient, type Schemas } from "@qdrant/js-client-rest";
import { type Caller, createCollection, dropCollection, ensureCollection } from "./collections.js";
import { call } from "./errors.js";
import {
  chunksOfPaths,
  EMBEDDED_CHUNKS,
  type FilterPlan,
  recordsOfKind,
  searchFilter,
  staleChunks,
} from "./filter.js";
import { recordPointId } from "./ids.js";
import { QdrantKeyValue } from "./key-value.js";
import { checkLayout, layoutValue } from "./layout.js";
import { recordsCollectionName } from "./naming.js";
import type { QdrantStoreOptions } from "./options.js";
import { type QdrantEnv, type ResolvedOptions, resolveOptions } from "./options-check.js";
import { scrollAll } from "./paging.js";
import {
  ChunkPoints,
  filePoint,
  fileRecordOf,
  metaPoint,
  metaValueOf,
  type Point,
  storedChunkOf,
} from "./points.js";
import { topK } from "./ranking.js";
import {
  CHUNK_INDEXES,
  CHUNK_READ_FIELDS,
  chunkCollectionConfig,
  chunkCollectionShape,
  DENSE_VECTOR,
  LAYOUT_META_KEY,
  RECORD_INDEXES,
  RECORDS_COLLECTION_CONFIG,
  SPARSE_VECTOR,
} from "./schema.js";
import { queryVector } from "./sparse.js";
import { batches, planWrite, staleDeletes, type Upsert } from "./write-plan.js";

/** Paths per delete-by-path request, and ids per retrieve or delete-by-id request. */
const KEYS_PER_REQUEST = 1000;
/** Points per scroll page. */
const SCROLL_PAGE = 1000;

/**
 * An engram store on a Qdrant server. Two collections per workspace: `<collection>` holds one point
 * per chunk — a named dense vector `dense` (cosine) and a sparse vector `bm25` (IDF applied by
 * Qdrant), payload-indexed on path, path prefixes, tier and source — and `<collection>_records`
 * holds file records, meta values and the key-value map as vector-less points with a `kind`.
 *
 * Qdrant has no transactions across requests, so `capabilities.atomicWrites` is false: a write
 * sends chunks first (new points, then the stale ones' deletion) and file records last, so a crash
 * leaves a file looking stale and the next sync re-indexes it. Every request is retried on 429,
 * 5xx, timeouts and network failures (core's `withRetry`), and waits until Qdrant has applied it.
 */
export class QdrantStore implements MemoryStore {
  readonly kind = "qdrant";
  readonly capabilities: StoreCapabilities = {
    vector: true,
    fulltext: true,
    keyValue: true,
    persistent: true,
    atomicWrites: false,
  };
  readonly keyValue: QdrantKeyValue;
  /** Name of the chunk collection. */
  readonly collection: string;
  /** Name of the collection of file records, meta and cache. */
  readonly recordsCollection: string;

  readonly #options: ResolvedOptions;
  readonly #points: ChunkPoints;
  readonly #client: QdrantClient;
  #ready = false;
  /** True while `init()` runs: its own requests may go out before the store is ready. */
  #initialising = false;
  #opening: Promise<void> | undefined;
  /** Dimensions of the chunk collection's dense vector, read at init and kept by reset. */
  #dims: number | null = null;
  #closed = false;
  readonly #caller: Caller = (action, fn) => this.#call(action, fn);

  /**
   * @param env where `QDRANT_URL` and `QDRANT_API_KEY` are read when the options leave them out.
   * @throws EngramError `CONFIG_INVALID` for an option out of range or a bad collection name.
   */
  constructor(options: QdrantStoreOptions, env: QdrantEnv = process.env) {
    this.#options = resolveOptions(options, env);
    this.collection = this.#options.collection;
    this.recordsCollection = recordsCollectionName(this.collection);
    this.#points = new ChunkPoints(this.#options.bm25);
    const { url, apiKey, timeoutMs } = this.#options;
    this.#client = new QdrantClient({
      url,
      ...(apiKey !== undefined ? { apiKey } : {}),
      timeout: timeoutMs,
      // No request before init(); the first one reports an unreachable server with a fix.
      checkCompatibility: false,
    });
    this.keyValue = new QdrantKeyValue({
      collection: this.recordsCollection,
      batchSize: this.#options.batchSize,
      call: this.#caller,
    });
  }

  /** The server URL the store talks to. */
  get url(): string {
    return this.#options.url;
  }

  async init(): Promise<void> {
    this.#assertNotClosed();
    if (this.#ready) return;
    if (!this.#opening) {
      this.#initialising = true;
      this.#opening = this.#open().finally(() => {
        this.#opening = undefined;
        this.#initialising = false;
      });
    }
    await this.#opening;
  }

  async getMeta(key: string): Promise<string | undefined> {
    const points = await this.#call("read meta", (client) =>
      client.retrieve(this.recordsCollection, {
        ids: [recordPointId("meta", key)],
        with_payload: true,
      }),
    );
    return points[0] ? metaValueOf(points[0].payload) : undefined;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.#upsert(this.recordsCollection, [metaPoint(key, value)], "write meta");
  }

  /**
   * File records go first, then the chunk collection is dropped and created anew for `dims` (a
   * Qdrant collection's vector size is fixed): a crash in between leaves chunks without files,
   * which the next sync replaces (it resets again, as the index identity was not yet updated).
   */
  async reset(options: { dims: number | null }): Promise<void> {
    const { dims } = options;
    if (dims !== null && !(Number.isInteger(dims) && dims > 0)) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `reset: dims must be a positive integer or null, got ${dims}.`,
        { hint: "Pass the embedder's dimensions, or null for a keyword-only index." },
      );
    }
    await this.#call("reset the index", (client) =>
      client.delete(this.recordsCollection, { wait: true, filter: recordsOfKind("file") }),
    );
    await dropCollection(this.#caller, this.collection, "reset the index");
    await this.#createChunkCollection(dims);
    await this.setMeta(LAYOUT_META_KEY, layoutValue(this.#options.bm25));
  }

  async dims(): Promise<number | null> {
    this.#use("read the index dimensions");
    return this.#dims;
  }

  async getFile(path: string): Promise<FileRecord | undefined> {
    const points = await this.#call("read a file record", (client) =>
      client.retrieve(this.recordsCollection, {
        ids: [recordPointId("file", path)],
        with_payload: true,
      }),
    );
    return points[0] ? fileRecordOf(points[0].payload) : undefined;
  }

  async listFiles(filter?: { source?: Source }): Promise<FileRecord[]> {
    const points = await this.#scroll(
      "list files",
      this.recordsCollection,
      recordsOfKind("file", filter?.source),
      true,
    );
    return points.map((point) => fileRecordOf(point.payload));
  }

  /**
   * Chunks first (deleted files' chunks, then new chunk points in batches, then what is left of
   * the upserted files' old versions), file records last. The whole batch is checked before
   * anything is sent, so a refused batch changes nothing.
   */
  async write(batch: StoreBatch): Promise<void> {
    this.#use("write to the index");
    const plan = planWrite(batch);
    for (const { file, chunks } of plan.upserts) assertChunksFit(file, chunks, this.#dims);
    assertUniqueChunkIds(plan.upserts.flatMap((upsert) => upsert.chunks));

    for (const paths of batches(plan.removed, KEYS_PER_REQUEST)) {
      await this.#call("delete chunks", (client) =>
        client.delete(this.collection, { wait: true, filter: chunksOfPaths(paths) }),
      );
    }
    const chunkPoints = plan.upserts.flatMap(({ chunks }) =>
      chunks.map((chunk) => this.#points.point(chunk)),
    );
    await this.#upsert(this.collection, chunkPoints, "write chunks");
    for (const group of staleDeletes(plan.upserts, KEYS_PER_REQUEST)) {
      await this.#call("delete replaced chunks", (client) =>
        client.delete(this.collection, {
          wait: true,
          filter: staleChunks(group.paths, group.keep),
        }),
      );
    }
    await this.#writeFiles(plan.removed, plan.upserts, plan.touches);
  }

  async getChunks(path: string): Promise<StoredChunk[]> {
    const points = await this.#scroll(
      "read chunks",
      this.collection,
      chunksOfPaths([path]),
      CHUNK_READ_FIELDS,
    );
    return points.map((point) => storedChunkOf(point.payload)).sort(compareChunkOrder);
  }

  async searchText(
    terms: readonly string[],
    k: number,
    filter?: SearchFilter,
  ): Promise<StoreHit[]> {
    this.#use("search the index");
    const limit = resultLimit(k);
    const sparse = queryVector(terms);
    const plan = searchFilter(filter);
    if (limit === 0 || sparse === null || plan.kind === "none") return [];
    return this.#search(limit, plan, filter, { query: sparse, using: SPARSE_VECTOR });
  }

  async searchVector(vector: Float32Array, k: number, filter?: SearchFilter): Promise<StoreHit[]> {
    this.#use("search the index");
    const dims = this.#dims;
    if (dims === null) return [];
    assertQueryDims(vector, dims);
    const limit = resultLimit(k);
    const plan = searchFilter(filter);
    // A zero vector has no direction: nothing is near it.
    if (limit === 0 || plan.kind === "none" || vector.every((x) => x === 0)) return [];
    return this.#search(limit, plan, filter, {
      query: Array.from(vector),
      using: DENSE_VECTOR,
      ...(this.#options.exactVectorSearch ? { params: { exact: true } } : {}),
    });
  }

  async stats(): Promise<StoreStats> {
    const count = (collection: string, filter: Schemas["Filter"] | undefined) =>
      this.#call("read index statistics", (client) =>
        client.count(collection, { exact: true, ...(filter ? { filter } : {}) }),
      ).then((result) => result.count);
    return {
      files: await count(this.recordsCollection, recordsOfKind("file")),
      chunks: await count(this.collection, undefined),
      vectors: this.#dims === null ? 0 : await count(this.collection, EMBEDDED_CHUNKS),
    };
  }

  /** Delete both collections from the server (the index only: the Markdown files stay). */
  async drop(): Promise<void> {
    for (const name of [this.collection, this.recordsCollection]) {
      await dropCollection(this.#caller, name, "delete the index");
    }
    this.#dims = null;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#opening?.catch(() => undefined);
    this.#ready = false;
  }

  /** Connect, create missing collections and indexes, check the layout, move a layout-1 embedding cache. */
  async #open(): Promise<void> {
    const { url } = this.#options;
    await ensureCollection(
      this.#caller,
      this.recordsCollection,
      RECORDS_COLLECTION_CONFIG,
      RECORD_INDEXES,
    );
    const info = await ensureCollection(
      this.#caller,
      this.collection,
      chunkCollectionConfig(null),
      CHUNK_INDEXES,
    );
    const shape = chunkCollectionShape(info);
    if (shape.problems.length) {
      throw new EngramError(
        "STORE_FAILED",
        `The Qdrant collection ${this.collection} at ${url} is not an engram chunk collection (${shape.problems.join("; ")}).`,
        { hint: "Point store.options.collection at a collection of its own." },
      );
    }
    this.#dims = shape.dims;
    const check = checkLayout(
      await this.getMeta(LAYOUT_META_KEY),
      this.#options.bm25,
      info.points_count ?? 0,
      `${this.collection} at ${url}`,
    );
    if (check.kind === "error") throw check.error;
    if (check.kind === "write")
      await this.setMeta(LAYOUT_META_KEY, layoutValue(this.#options.bm25));
    await this.keyValue.moveEmbeddingCache();
    this.#ready = true;
  }

  async #createChunkCollection(dims: number | null): Promise<void> {
    await createCollection(
      this.#caller,
      this.collection,
      chunkCollectionConfig(dims),
      CHUNK_INDEXES,
    );
    this.#dims = dims;
  }

  /** Delete removed files' records, write upserted ones, then apply touches to stored records. */
  async #writeFiles(
    removed: readonly string[],
    upserts: readonly Upsert[],
    touches: readonly FileRecord[],
  ): Promise<void> {
    for (const paths of batches(removed, KEYS_PER_REQUEST)) {
      await this.#call("delete file records", (client) =>
        client.delete(this.recordsCollection, {
          wait: true,
          points: paths.map((path) => recordPointId("file", path)),
        }),
      );
    }
    await this.#upsert(
      this.recordsCollection,
      upserts.map(({ file }) => filePoint(file)),
      "write file records",
    );
    const touched: Point[] = [];
    for (const slice of batches(touches, KEYS_PER_REQUEST)) {
      const mtimes = new Map(slice.map((touch) => [touch.path, touch.mtimeMs]));
      const points = await this.#call("read file records", (client) =>
        client.retrieve(this.recordsCollection, {
          ids: slice.map((touch) => recordPointId("file", touch.path)),
          with_payload: true,
        }),
      );
      for (const point of points) {
        const file = fileRecordOf(point.payload);
        touched.push(filePoint({ ...file, mtimeMs: mtimes.get(file.path) ?? file.mtimeMs }));
      }
    }
    await this.#upsert(this.recordsCollection, touched, "write file records");
  }

  /** Upsert `points` in batches of `batchSize`, each applied before the next is sent. */
  async #upsert(collection: string, points: readonly Point[], action: string): Promise<void> {
    for (const slice of batches(points, this.#options.batchSize)) {
      await this.#call(action, (client) =>
        client.upsert(collection, { wait: true, points: slice }),
      );
    }
  }

  /** Every point matching `filter`, page by page. */
  async #scroll(
    action: string,
    collection: string,
    filter: Schemas["Filter"],
    withPayload: true | string[],
  ): Promise<Schemas["Record"][]> {
    return scrollAll((offset) =>
      this.#call(action, (client) =>
        client.scroll(collection, {
          filter,
          limit: SCROLL_PAGE,
          with_payload: withPayload,
          with_vector: false,
          ...(offset !== undefined ? { offset } : {}),
        }),
      ),
    );
  }

  /** A ranked query (sparse or dense) with the contract's tie order at the cut-off. */
  async #search(
    limit: number,
    plan: FilterPlan,
    filter: SearchFilter | undefined,
    request: Pick<Schemas["QueryRequest"], "query" | "using" | "params">,
  ): Promise<StoreHit[]> {
    const prefix = filter?.pathPrefix;
    return topK(limit, async (fetchLimit) => {
      const response = await this.#call("search the index", (client) =>
        client.query(this.collection, {
          ...request,
          limit: fetchLimit,
          with_payload: CHUNK_READ_FIELDS,
          with_vector: false,
          ...(plan.kind === "filter" ? { filter: plan.filter } : {}),
        }),
      );
      return response.points.flatMap((point): StoreHit[] => {
        const chunk = storedChunkOf(point.payload);
        // Prefix keys are hashes: confirm the match (see path-prefix.ts).
        if (prefix && !chunk.path.startsWith(prefix)) return [];
        if (request.using === SPARSE_VECTOR && !(point.score > 0)) return [];
        return [{ chunk, score: point.score }];
      });
    });
  }

  /** Run one client call with retries; failures become EngramErrors. */
  async #call<T>(action: string, fn: (client: QdrantClient) => Promise<T>): Promise<T> {
    const client = this.#use(action);
    return call(
      { url: this.#options.url, collection: this.collection },
      action,
      this.#options.retry,
      () => fn(client),
    );
  }

  /** The client, once `init()` has started (its own requests run while it opens). */
  #use(action: string): QdrantClient {
    this.#assertNotClosed();
    if (!this.#ready && !this.#initialising) {
      throw storeNotInitialisedError("Qdrant store", action);
    }
    return this.#client;
  }

  #assertNotClosed(): void {
    if (this.#closed) {
      throw storeClosedError(
        `Qdrant store for collection ${this.collection} at ${this.#options.url}`,
      );
    }
  }
}
