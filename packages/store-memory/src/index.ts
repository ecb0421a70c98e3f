/**
 * `@engram/store-memory`: an engram store held in memory — no native dependency, no files unless
 * asked. BM25 through wink-bm25-text-search over core's analysed terms, exact cosine vector
 * search, an LRU embedding cache, and optional JSON Lines snapshots.
 */
export { createMemoryStore, memoryStore } from "./factory.js";
export { InMemoryStore } from "./memory-store.js";
export {
  DEFAULT_SNAPSHOT_INTERVAL_MS,
  type MemoryStoreFactoryOptions,
  type MemoryStoreOptions,
} from "./options.js";
export { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from "./snapshot-format.js";
