/**
 * @engram/embed-openai — engram embeddings from OpenAI or any OpenAI-compatible endpoint (Ollama,
 * vLLM, LM Studio), with OpenAI's Batch API for large backfills.
 *
 * Integrators pass {@link openaiEmbedder} to `createMemory`; the CLI and config use
 * {@link openaiProvider}.
 *
 * @packageDocumentation
 */
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
