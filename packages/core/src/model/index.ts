export {
  LanguageModelChain,
  type LanguageModelChainOptions,
  LanguageModelRun,
} from "./chain.js";
export { isModelError, ModelError, type ModelFailure, modelErrorFromHttp } from "./errors.js";
export type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  TokenUsage,
} from "./language-model.js";
export {
  type LanguageModelRerankerOptions,
  languageModelReranker,
} from "./language-model-reranker.js";
export {
  type LanguageModelProvider,
  type LanguageModelRegistry,
  type LanguageModelSelection,
  selectLanguageModels,
} from "./provider.js";
export type { Reranker } from "./reranker.js";
export {
  type RerankConfig,
  type RerankerProvider,
  type RerankerRegistry,
  rerankerSettings,
  selectReranker,
} from "./reranker-provider.js";
export {
  type CallContext,
  describeLanguageModel,
  type LanguageModelStats,
  type ResilienceOptions,
  ResilientLanguageModel,
} from "./resilient.js";
export { assertMatchesSchema, generateResult, parseJsonAnswer } from "./structured-output.js";
export {
  type BudgetHold,
  estimateInputTokens,
  isBudgetError,
  ModelTokenBudget,
  usageOrEstimate,
} from "./usage.js";
export {
  type LanguageModelMemberStatus,
  type LanguageModelStatus,
  LLM_STATE_META_KEY,
  type TokensSpent,
  WorkspaceModels,
} from "./workspace-models.js";
