import { batches, type KeyValueStore, movedCacheEntry } from "@engram/core/driver";
import type { Schemas } from "@qdrant/js-client-rest";
import { recordsOfKind } from "./filter.js";
import { recordPointId } from "./ids.js";
import { cacheEntryOf, keyValueEntryOf, keyValuePoint } from "./points.js";
import { type Caller, PAGE_SIZE, scrollPoints, upsertPoints } from "./requests.js";

/** How the map reaches the records collection (calls retried and mapped to EngramErrors). */
export interface RecordsAccess {
  readonly collection: string;
  readonly batchSize: number;
  readonly call: Caller;
}

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
    for (const slice of batches(keys, PAGE_SIZE)) {
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
    const { call, collection, batchSize } = this.access;
    const points = [...new Map(entries)].map(([key, value]) => keyValuePoint(key, value));
    await upsertPoints(call, "write the key-value map", collection, points, batchSize);
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
    for (const slice of batches(ids, PAGE_SIZE)) {
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
    const old = await this.#scroll(recordsOfKind("cache"), ["key", "vector"]);
    if (!old.length) return;
    await this.set(old.map(({ payload }) => movedCacheEntry(...cacheEntryOf(payload))));
    await this.access.call("move the embedding cache", (client) =>
      client.delete(collection, { wait: true, filter: recordsOfKind("cache") }),
    );
  }

  /** Ids of the entries whose key starts with `prefix` (any prefix). */
  async #idsWithPrefix(prefix: string): Promise<Schemas["ExtendedPointId"][]> {
    const folder = prefix.slice(0, prefix.lastIndexOf("/") + 1);
    const points = await this.#scroll(keysUnder(folder), ["key"]);
    return points
      .filter((point) => String(point.payload?.key ?? "").startsWith(prefix))
      .map((point) => point.id);
  }

  #scroll(filter: Schemas["Filter"], fields: string[]): Promise<Schemas["Record"][]> {
    const { call, collection } = this.access;
    return scrollPoints(call, "read the key-value map", collection, filter, fields);
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
      key: "key_folders",
      match: { value: folder },
    });
  }
  return filter;
}
