export type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  TokenUsage,
} from "./language-model.js";
export type { Reranker } from "./reranker.js";
