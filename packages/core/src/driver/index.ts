export { bytesToVector, EmbeddingCache, vectorToBytes } from "../embedding/cache.js";
export {
  EmbeddingError,
  embeddingErrorFromHttp,
  isEmbeddingError,
} from "../embedding/errors.js";
export { DEFAULT_RETRY, type RetryPolicy, withRetry } from "../embedding/retry.js";
export { EngramError, type EngramErrorCode, isEngramError } from "../errors.js";
export {
  BM25,
  bm25Idf,
  bm25Term,
  MIN_IDF,
  rankWithCommonTerms,
  rankWithCommonTermsAsync,
  rareTerms,
} from "../ranking/bm25.js";
export {
  type IndexedChunk,
  type IndexHit,
  InMemoryIndex,
  type InMemoryIndexOptions,
} from "../ranking/in-memory-index.js";
export { cosineSimilarity, KERNEL_SLACK, quantize } from "../ranking/quantize.js";
export { javascriptKernel, type VectorKernel, vectorKernel } from "../ranking/vector-kernel.js";
export { KthSmallest } from "../ranking/vector-matrix.js";
export {
  type MemoryIndexedStore,
  type MemoryIndexOptions,
  withMemoryIndex,
  withMemoryIndexFactory,
} from "../ranking/with-memory-index.js";
export {
  CHARACTER_TERM_WEIGHT,
  isCharacterTerm,
  termFrequencyWeight,
} from "../text/character-terms.js";
export { sha256Hex } from "../text/hash.js";
export { isTier, TIERS, type Tier } from "../tier.js";
export {
  type HolderState,
  holderState,
  type LockHolder,
  thisProcess,
} from "../workspace/lock-holder.js";
export {
  assertChunksFit,
  assertQueryDims,
  assertUniqueChunkIds,
  checkStoreOptions,
  resultLimit,
} from "./checks.js";
export {
  type ChunkLocation,
  compareChunkOrder,
  compareHits,
  completeTopK,
} from "./chunk-order.js";
export type * from "./contract.js";
export {
  type CheckedBatch,
  defineStore,
  type Guarded,
  type StoreDriver,
} from "./define-store.js";
export {
  type ChunkPredicate,
  compileFilter,
  compileLabelFilter,
  type Filterable,
  type LabelPredicate,
} from "./filter.js";
export type * from "./records.js";
export {
  describeRecovery,
  parseRecoveries,
  RECOVERY_META_KEY,
  type StoreRecovery,
  takeRecoveries,
} from "./recovery.js";
export { storeClosedError, storeNotInitialisedError } from "./state-errors.js";
