/**
 * @engram/embed-gemini — engram embeddings from Google's Gemini API (`gemini-embedding-001`)
 * through the official `@google/genai` SDK.
 *
 * @packageDocumentation
 */
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
