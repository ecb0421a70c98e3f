/**
 * `@engram/store-qdrant`: an engram store on a Qdrant server — a dense cosine vector and a sparse
 * BM25 vector (term weights from core's analysed terms, IDF applied by Qdrant) per chunk.
 *
 * @packageDocumentation
 */

export { LAYOUT_VERSION } from "./collections.js";
export { createQdrantStore, type QdrantStore, qdrantStore } from "./factory.js";
export { defaultCollectionName, recordsCollectionName } from "./ids.js";
export {
  type Bm25Params,
  DEFAULT_BATCH_SIZE,
  DEFAULT_BM25,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_URL,
  type QdrantEnv,
  type QdrantStoreFactoryOptions,
  type QdrantStoreOptions,
} from "./options.js";
