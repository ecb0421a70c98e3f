import { type EmbeddingCacheStore, EngramError } from "@engram/core";
import type { QdrantClient } from "@qdrant/js-client-rest";
import { recordsOfKind } from "./filter.js";
import { recordPointId } from "./ids.js";
import { cacheEntryOf, cachePoint, type Point } from "./points.js";
import { RECORD_FIELDS } from "./schema.js";
import { batches } from "./write-plan.js";

/** How the cache reaches the records collection (calls retried and mapped to EngramErrors). */
export interface RecordsAccess {
  readonly collection: string;
  readonly batchSize: number;
  call<T>(action: string, fn: (client: QdrantClient) => Promise<T>): Promise<T>;
}

/** Ids per retrieve or delete request. */
const IDS_PER_REQUEST = 1000;

/**
 * The embedding cache as `kind: "cache"` points of the records collection, keyed by a UUID of the
 * cache key, the vector kept in the payload. Recency is a counter, not a clock: every `get` hit and
 * every `set` takes the next value, in call order, so `prune` keeps exactly the most recently used
 * entries. The counter continues from the largest stored value when the store opens; two processes
 * writing one cache at once may hand out equal values, which only blurs the order between them.
 */
export class QdrantEmbeddingCache implements EmbeddingCacheStore {
  #nextUse = 1;

  constructor(private readonly access: RecordsAccess) {}

  /** Continue the use counter after the largest value stored. Called when the store opens. */
  async load(): Promise<void> {
    const { collection } = this.access;
    const page = await this.access.call("read the embedding cache", (client) =>
      client.scroll(collection, {
        filter: recordsOfKind("cache"),
        order_by: { key: RECORD_FIELDS.lastUsed, direction: "desc" },
        limit: 1,
        with_payload: [RECORD_FIELDS.lastUsed],
      }),
    );
    const last = page.points[0]?.payload?.[RECORD_FIELDS.lastUsed];
    this.#nextUse = (typeof last === "number" ? last : 0) + 1;
  }

  async get(keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const wanted = [...new Set(keys)];
    const found = new Map<string, Float32Array>();
    const { collection } = this.access;
    for (const slice of batches(wanted, IDS_PER_REQUEST)) {
      const points = await this.access.call("read the embedding cache", (client) =>
        client.retrieve(collection, {
          ids: slice.map((key) => recordPointId("cache", key)),
          with_payload: true,
          with_vector: false,
        }),
      );
      for (const point of points) {
        const entry = cacheEntryOf(point.payload);
        found.set(entry.key, entry.vector);
      }
    }
    // Mark the hits used, in the order they were asked for.
    const touched = wanted.filter((key) => found.has(key));
    for (const slice of batches(touched, this.access.batchSize)) {
      const operations = slice.map((key) => ({
        set_payload: {
          payload: { [RECORD_FIELDS.lastUsed]: this.#nextUse++ },
          points: [recordPointId("cache", key)],
        },
      }));
      await this.access.call("update the embedding cache", (client) =>
        client.batchUpdate(collection, { wait: true, operations }),
      );
    }
    return found;
  }

  async set(entries: ReadonlyArray<readonly [key: string, vector: Float32Array]>): Promise<void> {
    // A key set twice in one call keeps its last vector and its last position.
    const latest = new Map<string, Float32Array>();
    for (const [key, vector] of entries) {
      latest.delete(key);
      latest.set(key, vector);
    }
    const points: Point[] = [...latest].map(([key, vector]) =>
      cachePoint(key, vector, this.#nextUse++),
    );
    const { collection } = this.access;
    for (const slice of batches(points, this.access.batchSize)) {
      await this.access.call("write the embedding cache", (client) =>
        client.upsert(collection, { wait: true, points: slice }),
      );
    }
  }

  async size(): Promise<number> {
    const { collection } = this.access;
    const result = await this.access.call("read the embedding cache", (client) =>
      client.count(collection, { filter: recordsOfKind("cache"), exact: true }),
    );
    return result.count;
  }

  async prune(maxEntries: number): Promise<number> {
    if (!Number.isFinite(maxEntries) || maxEntries < 0) {
      throw new EngramError("INVALID_ARGUMENT", `prune(${maxEntries}): maxEntries must be ≥ 0.`, {
        hint: "Pass the number of cache entries to keep (e.g. 50000).",
      });
    }
    const excess = (await this.size()) - Math.floor(maxEntries);
    if (excess <= 0) return 0;
    const { collection } = this.access;
    // The least recently used first; one page (order_by scrolls cannot be resumed by cursor).
    const page = await this.access.call("prune the embedding cache", (client) =>
      client.scroll(collection, {
        filter: recordsOfKind("cache"),
        order_by: { key: RECORD_FIELDS.lastUsed, direction: "asc" },
        limit: excess,
        with_payload: false,
      }),
    );
    const ids = page.points.map((point) => point.id);
    for (const slice of batches(ids, IDS_PER_REQUEST)) {
      await this.access.call("prune the embedding cache", (client) =>
        client.delete(collection, { wait: true, points: slice }),
      );
    }
    return ids.length;
  }

  async clear(): Promise<void> {
    const { collection } = this.access;
    await this.access.call("clear the embedding cache", (client) =>
      client.delete(collection, { wait: true, filter: recordsOfKind("cache") }),
    );
  }
}
