/**
 * `@engram/store-lancedb`: an engram store on LanceDB — BM25 full-text search over core's analysed
 * terms and cosine vector search, in a local folder or on object storage.
 *
 * @packageDocumentation
 */
export { createLanceDbStore, type LanceDbStore, lancedbStore } from "./factory.js";
export {
  DEFAULT_EXACT_VECTOR_BYTES,
  DEFAULT_FOLDER_NAME,
  DEFAULT_FULLTEXT_STALE_FRACTION,
  DEFAULT_MEMORY_INDEX_MAX_CHUNKS,
  DEFAULT_VERSION_RETENTION_MS,
  type LanceDbStoreFactoryOptions,
  type LanceDbStoreOptions,
  type Location,
  type LocationKind,
} from "./options.js";
export { SCHEMA_VERSION } from "./schema.js";
