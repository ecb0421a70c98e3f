import {
  batches,
  type CheckedBatch,
  EngramError,
  type FileRecord,
  type SearchFilter,
  type Source,
  type StoreCapabilities,
  type StoreDriver,
  type StoredChunk,
  type StoreHit,
  type StoreStats,
} from "@engram/core/driver";
import { QdrantClient, type Schemas } from "@qdrant/js-client-rest";
import {
  CHUNK_INDEXES,
  checkLayout,
  chunkCollectionConfig,
  chunkCollectionShape,
  createCollection,
  DENSE_VECTOR,
  dropCollection,
  ensureCollection,
  LAYOUT_META_KEY,
  layoutValue,
  RECORD_INDEXES,
  RECORDS_COLLECTION_CONFIG,
  SPARSE_VECTOR,
} from "./collections.js";
import {
  chunksOfPaths,
  EMBEDDED_CHUNKS,
  recordsOfKind,
  searchFilter,
  staleChunks,
} from "./filter.js";
import { recordPointId, recordsCollectionName } from "./ids.js";
import { QdrantKeyValue } from "./key-value.js";
import {
  type QdrantEnv,
  type QdrantStoreOptions,
  type ResolvedOptions,
  resolveOptions,
} from "./options.js";
import {
  CHUNK_READ_FIELDS,
  chunkPoint,
  filePoint,
  fileRecordOf,
  metaPoint,
  metaValueOf,
  type Point,
  storedChunkOf,
} from "./points.js";
import { type Caller, call, PAGE_SIZE, scrollPoints, upsertPoints } from "./requests.js";
import { queryVector } from "./sparse.js";

/**
 * The Qdrant driver behind `createQdrantStore` (core's `defineStore` adds the guards, argument and
 * dimension checks and the contract's tie order). Two collections per workspace: `<collection>`
 * holds one point per chunk — a named dense vector `dense` (cosine) and a sparse vector `bm25` (IDF
 * applied by Qdrant), payload-indexed on path, path prefixes, tier and source — and
 * `<collection>_records` holds file records, meta values and the key-value map as vector-less
 * points with a `kind`.
 *
 * Qdrant has no transactions across requests, so `capabilities.atomicWrites` is false: a write
 * sends chunks first (new points, then the stale ones' deletion) and file records last, so a crash
 * leaves a file looking stale and the next sync re-indexes it. Every request is retried on 429,
 * 5xx, timeouts and network failures (core's `withRetry`), and waits until Qdrant has applied it.
 */
export class QdrantDriver implements StoreDriver {
  readonly kind = "qdrant";
  readonly capabilities: StoreCapabilities = {
    vector: true,
    fulltext: true,
    keyValue: true,
    persistent: true,
    atomicWrites: false,
  };
  readonly name: string;
  readonly keyValue: QdrantKeyValue;
  /** Name of the chunk collection. */
  readonly collection: string;
  /** Name of the collection of file records, meta and the key-value map. */
  readonly recordsCollection: string;
  readonly options: ResolvedOptions;

  readonly #client: QdrantClient;
  /** Dimensions of the chunk collection's dense vector, read at open and kept by reset. */
  #dims: number | null = null;
  readonly #call: Caller = (action, fn) =>
    call({ url: this.options.url, collection: this.collection }, action, this.options.retry, () =>
      fn(this.#client),
    );

  /** @throws EngramError `CONFIG_INVALID` for an option out of range or a bad collection name. */
  constructor(options: QdrantStoreOptions, env: QdrantEnv) {
    this.options = resolveOptions(options, env);
    const { url, apiKey, timeoutMs, collection, batchSize } = this.options;
    this.collection = collection;
    this.recordsCollection = recordsCollectionName(collection);
    this.name = `Qdrant store for collection ${collection} at ${url}`;
    this.#client = new QdrantClient({
      url,
      ...(apiKey !== undefined ? { apiKey } : {}),
      timeout: timeoutMs,
      // No request before init(); the first one reports an unreachable server with a fix.
      checkCompatibility: false,
    });
    this.keyValue = new QdrantKeyValue({
      collection: this.recordsCollection,
      batchSize,
      call: this.#call,
    });
  }

  /** Create missing collections and indexes, check the layout, move a layout-1 embedding cache. */
  async open(): Promise<void> {
    const { url, bm25 } = this.options;
    await ensureCollection(
      this.#call,
      this.recordsCollection,
      RECORDS_COLLECTION_CONFIG,
      RECORD_INDEXES,
    );
    const info = await ensureCollection(
      this.#call,
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
    const where = `${this.collection} at ${url}`;
    const check = checkLayout(
      await this.getMeta(LAYOUT_META_KEY),
      bm25,
      info.points_count ?? 0,
      where,
    );
    if (check === "write") await this.setMeta(LAYOUT_META_KEY, layoutValue(bm25));
    await this.keyValue.moveEmbeddingCache();
  }

  /** Nothing to release: the client holds no connection between requests. */
  async close(): Promise<void> {}

  async getMeta(key: string): Promise<string | undefined> {
    const [point] = await this.#retrieve("read meta", [recordPointId("meta", key)]);
    return point ? metaValueOf(point.payload) : undefined;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.#upsert(this.recordsCollection, [metaPoint(key, value)], "write meta");
  }

  /**
   * File records go first, then the chunk collection is dropped and created anew for `dims` (a
   * Qdrant collection's vector size is fixed): a crash in between leaves chunks without files,
   * which the next sync replaces (it resets again, as the index identity was not yet updated).
   */
  async reset(dims: number | null): Promise<void> {
    await this.#call("reset the index", (client) =>
      client.delete(this.recordsCollection, { wait: true, filter: recordsOfKind("file") }),
    );
    await dropCollection(this.#call, this.collection, "reset the index");
    await createCollection(this.#call, this.collection, chunkCollectionConfig(dims), CHUNK_INDEXES);
    this.#dims = dims;
    await this.setMeta(LAYOUT_META_KEY, layoutValue(this.options.bm25));
  }

  async dims(): Promise<number | null> {
    return this.#dims;
  }

  async getFile(path: string): Promise<FileRecord | undefined> {
    const [point] = await this.#retrieve("read a file record", [recordPointId("file", path)]);
    return point ? fileRecordOf(point.payload) : undefined;
  }

  async listFiles(source: Source | undefined): Promise<FileRecord[]> {
    const filter = recordsOfKind("file", source);
    const points = await this.#scroll("list files", this.recordsCollection, filter, true);
    return points.map((point) => fileRecordOf(point.payload));
  }

  /**
   * Chunks first (deleted files' chunks, then new chunk points in batches, then what is left of
   * the upserted files' old versions), file records last.
   */
  async write(batch: CheckedBatch): Promise<void> {
    for (const paths of batches(batch.deleted, PAGE_SIZE)) {
      await this.#call("delete chunks", (client) =>
        client.delete(this.collection, { wait: true, filter: chunksOfPaths(paths) }),
      );
    }
    const chunkPoints = batch.upserts.flatMap(({ chunks }) =>
      chunks.map((chunk) => chunkPoint(chunk, this.options.bm25)),
    );
    await this.#upsert(this.collection, chunkPoints, "write chunks");
    for (const filter of staleChunks(batch.upserts, PAGE_SIZE)) {
      await this.#call("delete replaced chunks", (client) =>
        client.delete(this.collection, { wait: true, filter }),
      );
    }
    await this.#writeFiles(batch);
  }

  async getChunks(path: string): Promise<StoredChunk[]> {
    const filter = chunksOfPaths([path]);
    const points = await this.#scroll("read chunks", this.collection, filter, CHUNK_READ_FIELDS);
    return points.map((point) => storedChunkOf(point.payload));
  }

  async searchText(
    terms: readonly string[],
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]> {
    const sparse = queryVector(terms);
    if (sparse === null) return [];
    return this.#search(limit, filter, { query: sparse, using: SPARSE_VECTOR });
  }

  async searchVector(
    vector: Float32Array,
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]> {
    return this.#search(limit, filter, {
      query: Array.from(vector),
      using: DENSE_VECTOR,
      ...(this.options.exactVectorSearch ? { params: { exact: true } } : {}),
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
      await dropCollection(this.#call, name, "delete the index");
    }
    this.#dims = null;
  }

  /**
   * File records: delete those of deleted files, write the upserted ones (with the last touch of
   * their path), then set the modification time of the other touched files that have a record.
   */
  async #writeFiles(batch: CheckedBatch): Promise<void> {
    for (const paths of batches(batch.deleted, PAGE_SIZE)) {
      const ids = paths.map((path) => recordPointId("file", path));
      await this.#call("delete file records", (client) =>
        client.delete(this.recordsCollection, { wait: true, points: ids }),
      );
    }
    const mtimes = new Map(batch.touches.map((touch) => [touch.path, touch.mtimeMs]));
    const upserted = batch.upserts.map(({ file }) => {
      const mtimeMs = mtimes.get(file.path) ?? file.mtimeMs;
      mtimes.delete(file.path);
      return filePoint({ ...file, mtimeMs });
    });
    await this.#upsert(this.recordsCollection, upserted, "write file records");
    for (const path of batch.deleted) mtimes.delete(path);
    const touched: Point[] = [];
    for (const paths of batches([...mtimes.keys()], PAGE_SIZE)) {
      const ids = paths.map((path) => recordPointId("file", path));
      for (const point of await this.#retrieve("read file records", ids)) {
        const file = fileRecordOf(point.payload);
        touched.push(filePoint({ ...file, mtimeMs: mtimes.get(file.path) ?? file.mtimeMs }));
      }
    }
    await this.#upsert(this.recordsCollection, touched, "write file records");
  }

  /** Points of the records collection by id, with their payload. */
  #retrieve(action: string, ids: string[]): Promise<Schemas["Record"][]> {
    return this.#call(action, (client) =>
      client.retrieve(this.recordsCollection, { ids, with_payload: true }),
    );
  }

  #upsert(collection: string, points: readonly Point[], action: string): Promise<void> {
    return upsertPoints(this.#call, action, collection, points, this.options.batchSize);
  }

  #scroll(
    action: string,
    collection: string,
    filter: Schemas["Filter"],
    payload: true | string[],
  ): Promise<Schemas["Record"][]> {
    return scrollPoints(this.#call, action, collection, filter, payload);
  }

  /** One ranked query (sparse or dense); core's `defineStore` completes a tie at the cut-off. */
  async #search(
    limit: number,
    filter: SearchFilter | undefined,
    request: Pick<Schemas["QueryRequest"], "query" | "using" | "params">,
  ): Promise<StoreHit[]> {
    const where = searchFilter(filter);
    const prefix = filter?.pathPrefix;
    const response = await this.#call("search the index", (client) =>
      client.query(this.collection, {
        ...request,
        limit,
        with_payload: CHUNK_READ_FIELDS,
        with_vector: false,
        ...(where ? { filter: where } : {}),
      }),
    );
    return response.points.flatMap((point): StoreHit[] => {
      const chunk = storedChunkOf(point.payload);
      // Prefix keys are hashes: confirm the match (see `pathPrefixKeys`).
      if (prefix && !chunk.path.startsWith(prefix)) return [];
      if (request.using === SPARSE_VECTOR && !(point.score > 0)) return [];
      return [{ chunk, score: point.score }];
    });
  }
}
