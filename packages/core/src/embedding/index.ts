export { EmbedderChain } from "./chain.js";
export {
  CircuitBreaker,
  type CircuitPolicy,
  type CircuitState,
  DEFAULT_CIRCUIT,
} from "./circuit-breaker.js";
export type { TokenBudget } from "./embed-texts.js";
export {
  type EmbedInput,
  type EmbedStats,
  embeddingCacheKey,
  embedTexts,
} from "./embed-texts.js";
export type { Embedder } from "./embedder.js";
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
} from "./errors.js";
export {
  describeEmbedding,
  type EmbeddingIdentity,
  embeddingIdentity,
  IDENTITY_META_KEY,
  INDEX_FORMAT,
  type IndexIdentity,
  identityChanges,
  indexIdentity,
  parseIdentity,
  serializeIdentity,
} from "./identity.js";
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
} from "./provider.js";
export { isProviderFailure, type ProviderStats, ResilientEmbedder } from "./resilient.js";
export {
  DEFAULT_RETRY,
  type RetryHooks,
  type RetryPolicy,
  retryDelay,
  sleep,
  withRetry,
} from "./retry.js";
export {
  AUTO_PROVIDER_ORDER,
  type EmbedderSelection,
  type ProviderChoice,
  type ProviderRegistry,
  type SelectionScope,
  selectEmbedders,
  selectProviders,
} from "./select.js";
export { unitVector } from "./vectors.js";
