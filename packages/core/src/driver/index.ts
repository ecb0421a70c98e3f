/**
 * `@engram/core/driver`: the kit for authors of store and provider packages.
 *
 * Stores: the store contract (`MemoryStore`, `StoreDriver`, records), `defineStore` (guards,
 * argument and dimension checks, tie order, error mapping — once for every driver), the shared
 * in-memory index and BM25 ranking, filters, recovery records, the embedding cache.
 *
 * Providers (embedders, language models, rerankers): their contracts, typed errors and the HTTP
 * failure classification (`classifyHttpFailure`, `embeddingErrorFromHttp`, `modelErrorFromHttp`),
 * settings from config and environment, retries, structured output (`generateResult`), unit vectors
 * and the token estimate.
 *
 * Covered by semver like `@engram/core`; the app API stays on `@engram/core`.
 *
 * @packageDocumentation
 */

export type { JsonSchema } from "../agent/tool-schema.js";
export {
  bytesToVector,
  EmbeddingCache,
  movedCacheEntry,
  vectorToBytes,
} from "../embedding/cache.js";
export type { Embedder } from "../embedding/embedder.js";
export {
  classifyHttpFailure,
  EmbeddingError,
  type EmbeddingFailure,
  embeddingErrorFromHttp,
  type HttpClassification,
  type HttpFailure,
  isEmbeddingError,
  isProviderError,
  isRetryableFailure,
  ProviderError,
  type ProviderErrorOptions,
  type ProviderFailure,
  type ProviderFailureInfo,
  type ProviderService,
  parseDurationMs,
  providerErrorCode,
  providerFailureOf,
  retryAfterFromHeaders,
} from "../embedding/errors.js";
export {
  type EmbeddingProvider,
  envName,
  type ProviderCheck,
  type ProviderDescriptor,
  type ProviderSetting,
  type ProviderSettings,
  redactSettings,
  resolveProviderSettings,
  type SettingsScope,
} from "../embedding/provider.js";
export {
  DEFAULT_RETRY,
  type RetryHooks,
  type RetryPolicy,
  retryDelay,
  sleep,
  withRetry,
} from "../embedding/retry.js";
export { unitVector } from "../embedding/vectors.js";
export { EngramError, type EngramErrorCode, isEngramError } from "../errors.js";
export {
  isModelError,
  ModelError,
  type ModelFailure,
  modelErrorFromHttp,
} from "../model/errors.js";
export type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  TokenUsage,
} from "../model/language-model.js";
export type { LanguageModelProvider } from "../model/provider.js";
export type { Reranker } from "../model/reranker.js";
export type { RerankerProvider } from "../model/reranker-provider.js";
export {
  assertMatchesSchema,
  generateResult,
  parseJsonAnswer,
} from "../model/structured-output.js";
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
  type ScannedChunk,
  type TermCountsPage,
  type TermCountsScan,
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
export { estimateTokens } from "../text/tokens.js";
export { isTier, TIERS, type Tier } from "../tier.js";
export {
  type HolderState,
  holderState,
  type LockHolder,
  thisProcess,
} from "../workspace/lock-holder.js";
export { batches } from "./batches.js";
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
  errorSummary,
  type NewerLayout,
  newerLayoutError,
  type StoreFailure,
  storeFailedError,
  type TransportFailure,
  transportFailure,
} from "./failures.js";
export {
  type ChunkPredicate,
  compileFilter,
  compileLabelFilter,
  type Filterable,
  type LabelPredicate,
  matchesNothing,
} from "./filter.js";
export { folderBytes } from "./folder-bytes.js";
export { IndexFile, type IndexFileBackend, type MoveAside } from "./index-file.js";
export type * from "./records.js";
export {
  describeRecovery,
  parseRecoveries,
  RECOVERY_META_KEY,
  type StoreRecovery,
  takeRecoveries,
} from "./recovery.js";
export { storeClosedError, storeNotInitialisedError } from "./state-errors.js";
export {
  type OptionsIssue,
  type OptionsResult,
  type OptionsSchema,
  parseStoreOptions,
  withoutDeprecatedOptions,
} from "./store-options.js";
export {
  encodeTermCounts,
  TermCountEncoder,
  TermCountPages,
  TermCountReader,
} from "./term-counts.js";
