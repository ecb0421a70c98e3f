/**
 * `@engram/store-memory`: an engram store held in memory — no native dependency, no files unless
 * asked. A chunk table over engram's in-memory index (BM25 and exact cosine k-NN, from
 * `@engram/core/driver`), a key-value map for core's embedding cache, and optional JSON Lines
 * snapshots.
 */
export { createInMemoryStore, type InMemoryStore, inMemoryStore } from "./factory.js";
export {
  DEFAULT_SNAPSHOT_INTERVAL_MS,
  type MemoryStoreFactoryOptions,
  type MemoryStoreOptions,
} from "./options.js";
export { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from "./snapshot-format.js";
