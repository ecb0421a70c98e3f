/**
 * @engram/embed-gemini — engram embeddings from Google's Gemini API (`gemini-embedding-001`), and
 * a language model through `generateContent` with JSON-Schema output (`gemini-2.5-flash`), both
 * through the official `@google/genai` SDK.
 *
 * @packageDocumentation
 */

export {
  createGeminiLanguageModel,
  geminiLanguageModel,
  readGenerateContent,
} from "./chat-model.js";
export type { GeminiLanguageModelOptions } from "./chat-options.js";
export { geminiLanguageModelProvider } from "./chat-provider.js";
export {
  GEMINI_CHAT_DEFAULTS,
  type GeminiLlmSettingName,
  geminiLlmSettings,
} from "./chat-settings.js";
export { createGeminiEmbedder, geminiEmbedder } from "./embedder.js";
export { KNOWN_GEMINI_MODELS, type KnownGeminiModel } from "./models.js";
export type { GeminiEmbedderOptions } from "./options.js";
export { geminiProvider } from "./provider.js";
export {
  GEMINI_DEFAULTS,
  GEMINI_PROVIDER_ID,
  type GeminiSettingName,
  geminiSettings,
} from "./settings.js";
