/**
 * @engram/embed-openai — engram embeddings from OpenAI or any OpenAI-compatible endpoint (Ollama,
 * vLLM, LM Studio), with OpenAI's Batch API for large backfills; and a language model through Chat
 * Completions with Structured Outputs (OpenAI, Ollama, vLLM, LM Studio, OpenRouter).
 *
 * Integrators pass {@link openaiEmbedder} / {@link openaiLanguageModel} to `createMemory`; the CLI
 * and config use {@link openaiProvider} / {@link openaiLanguageModelProvider}.
 *
 * @packageDocumentation
 */

export { openaiLanguageModel, readCompletion } from "./chat-model.js";
export type { OpenAILanguageModelOptions } from "./chat-options.js";
export { openaiLanguageModelProvider } from "./chat-provider.js";
export { chatCompletionBody, isStrictSchema, schemaName } from "./chat-request.js";
export {
  CHAT_DEFAULTS,
  MAX_TOKENS_FIELDS,
  type MaxTokensField,
  OPENAI_LLM_SETTINGS,
  type OpenAILlmSettingName,
  STRUCTURED_OUTPUT_MODES,
  type StructuredOutputMode,
} from "./chat-settings.js";
export { openaiEmbedder } from "./embedder.js";
export type { OpenAIEmbedderOptions } from "./options.js";
export { checkOpenAI, openaiProvider } from "./provider.js";
export {
  BATCH_MAX_TEXTS,
  DEFAULT_BASE_URL,
  DEFAULTS,
  KNOWN_MODELS,
  OPENAI_SETTINGS,
  type OpenAISettingName,
} from "./settings.js";
