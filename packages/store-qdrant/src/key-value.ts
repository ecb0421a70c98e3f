import { batches, type KeyValueStore, movedCacheEntry } from "@engram/core/driver";
import type { QdrantClient, Schemas } from "@qdrant/js-client-rest";
import { RECORD_FIELDS } from "./collections.js";
import { recordsOfKind } from "./filter.js";
import { recordPointId } from "./ids.js";
import { cacheEntryOf, keyValueEntryOf, keyValuePoint } from "./points.js";
import { scrollAll } from "./requests.js";

/** How the map reaches the records collection (calls retried and mapped to EngramErrors). */
export interface RecordsAccess {
  readonly collection: string;
  readonly batchSize: number;
  call<T>(action: string, fn: (client: QdrantClient) => Promise<T>): Promise<T>;
}

/** Ids per retrieve or delete request, and points per scroll page. */
const IDS_PER_REQUEST = 1000;

/**
 * The store's key → bytes map as `kind: "kv"` points of the records collection, keyed by a UUID of
 * the key (core keeps its embedding cache there and decides what stays). Counting and deleting by
 * a prefix that ends with "/" (all core asks for) is one filtered request; another prefix reads
 * the keys under its longest such part and picks them here.
 */
export class QdrantKeyValue implements KeyValueStore {
  constructor(private readonly access: RecordsAccess) {}

  async get(keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    const { collection } = this.access;
    for (const slice of batches(keys, IDS_PER_REQUEST)) {
      const points = await this.access.call("read the key-value map", (client) =>
        client.retrieve(collection, {
          ids: slice.map((key) => recordPointId("kv", key)),
          with_payload: true,
          with_vector: false,
        }),
      );
      for (const point of points) {
        const entry = keyValueEntryOf(point.payload);
        found.set(entry.key, entry.value);
      }
    }
    return found;
  }

  async set(entries: ReadonlyArray<readonly [key: string, value: Uint8Array]>): Promise<void> {
    const latest = new Map(entries);
    const { collection } = this.access;
    const points = [...latest].map(([key, value]) => keyValuePoint(key, value));
    for (const slice of batches(points, this.access.batchSize)) {
      await this.access.call("write the key-value map", (client) =>
        client.upsert(collection, { wait: true, points: slice }),
      );
    }
  }

  async count(prefix: string): Promise<number> {
    const { collection } = this.access;
    if (isFolder(prefix)) {
      const result = await this.access.call("read the key-value map", (client) =>
        client.count(collection, { filter: keysUnder(prefix), exact: true }),
      );
      return result.count;
    }
    return (await this.#idsWithPrefix(prefix)).length;
  }

  async deletePrefix(prefix: string): Promise<number> {
    const { collection } = this.access;
    if (isFolder(prefix)) {
      const gone = await this.count(prefix);
      if (gone) {
        await this.access.call("clear the key-value map", (client) =>
          client.delete(collection, { wait: true, filter: keysUnder(prefix) }),
        );
      }
      return gone;
    }
    const ids = await this.#idsWithPrefix(prefix);
    for (const slice of batches(ids, IDS_PER_REQUEST)) {
      await this.access.call("clear the key-value map", (client) =>
        client.delete(collection, { wait: true, points: slice }),
      );
    }
    return ids.length;
  }

  /**
   * Move layout 1's embedding cache points into key-value entries where core's cache finds them
   * (`movedCacheEntry`), then delete them: no text is embedded again after the upgrade. Called
   * when the store opens.
   */
  async moveEmbeddingCache(): Promise<void> {
    const { collection } = this.access;
    const old = await this.#scroll(recordsOfKind("cache"), [
      RECORD_FIELDS.key,
      RECORD_FIELDS.vector,
    ]);
    if (!old.length) return;
    await this.set(old.map(({ payload }) => movedCacheEntry(...cacheEntryOf(payload))));
    await this.access.call("move the embedding cache", (client) =>
      client.delete(collection, { wait: true, filter: recordsOfKind("cache") }),
    );
  }

  /** Ids of the entries whose key starts with `prefix` (any prefix). */
  async #idsWithPrefix(prefix: string): Promise<Schemas["ExtendedPointId"][]> {
    const folder = prefix.slice(0, prefix.lastIndexOf("/") + 1);
    const points = await this.#scroll(keysUnder(folder), [RECORD_FIELDS.key]);
    return points
      .filter((point) => String(point.payload?.[RECORD_FIELDS.key] ?? "").startsWith(prefix))
      .map((point) => point.id);
  }

  async #scroll(filter: Schemas["Filter"], fields: string[]): Promise<Schemas["Record"][]> {
    const { collection } = this.access;
    return scrollAll((offset) =>
      this.access.call("read the key-value map", (client) =>
        client.scroll(collection, {
          filter,
          limit: IDS_PER_REQUEST,
          with_payload: fields,
          with_vector: false,
          ...(offset !== undefined ? { offset } : {}),
        }),
      ),
    );
  }
}

/** `""` or a prefix ending with "/": what `key_folders` can answer. */
function isFolder(prefix: string): boolean {
  return prefix === "" || prefix.endsWith("/");
}

/** Key-value entries whose key starts with `folder` (`""` or ending with "/"). */
export function keysUnder(folder: string): Schemas["Filter"] {
  const filter = recordsOfKind("kv");
  if (folder !== "") {
    (filter.must as Schemas["Condition"][]).push({
      key: RECORD_FIELDS.keyFolders,
      match: { value: folder },
    });
  }
  return filter;
}
