export type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  TokenUsage,
} from "./language-model.js";
export type { Reranker } from "./reranker.js";
export {
  type RerankConfig,
  type RerankerProvider,
  type RerankerRegistry,
  rerankerSettings,
  selectReranker,
} from "./reranker-provider.js";
