import { randomUUID } from "node:crypto";
import { afterAll } from "vitest";
import { createQdrantStore, type QdrantStore, type QdrantStoreOptions } from "../src/index.js";

/** The Qdrant server the integration tests run against (from `QDRANT_URL`), if any. */
export const QDRANT_URL = process.env.QDRANT_URL?.trim() || undefined;

/** Register a visible skip line when no server is configured. */
export function warnSkipped(what: string): void {
  if (!QDRANT_URL) {
    console.warn(
      `SKIPPED: store-qdrant ${what} (set QDRANT_URL=http://localhost:6333 to run against a real Qdrant)`,
    );
  }
}

/**
 * Collections for one test file: every name is unique to this run, and every collection a test
 * created is dropped once the file is done (also when a test failed).
 */
export function useCollections() {
  const run = `engram_test_${randomUUID().slice(0, 8)}`;
  const names = new Map<string, string>();
  afterAll(async () => {
    for (const collection of names.values()) {
      const store = createQdrantStore({ collection, url: QDRANT_URL, retry: { retries: 1 } });
      await store.init().catch(() => undefined);
      await store.drop().catch(() => undefined);
      await store.close();
    }
  });
  return {
    /** The collection for `key` (the same name for the same key, so a store can be reopened). */
    name(key: string): string {
      let name = names.get(key);
      if (!name) {
        name = `${run}_${names.size}`;
        names.set(key, name);
      }
      return name;
    },
    /** A store over the collection for `key` (not yet initialised). */
    store(key: string, options: Partial<QdrantStoreOptions> = {}): QdrantStore {
      return createQdrantStore({ collection: this.name(key), url: QDRANT_URL, ...options });
    },
  };
}
