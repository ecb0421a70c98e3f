export { type LocalLanguageModel, localLanguageModel } from "./chat-model.js";
export { localLanguageModelProvider } from "./chat-provider.js";
export {
  LOCAL_CHAT_DEFAULTS,
  type LocalLanguageModelOptions,
  localLlmSettings,
} from "./chat-settings.js";
export { type LocalEmbedder, localEmbedder } from "./embedder.js";
export { PROVIDER_ID } from "./errors.js";
export { type ModelHeader, readModelHeader } from "./gguf-header.js";
export { isHfUri } from "./hf-uri.js";
export { grammarSchema } from "./json-grammar.js";
export { localProvider, localRerankerProvider } from "./provider.js";
export { type LocalReranker, type LocalRerankerOptions, localReranker } from "./reranker.js";
export {
  contextSizeFor,
  DEFAULT_BATCH_SIZE,
  DEFAULT_MAX_CONTEXT_SIZE,
  defaultModelCacheDir,
  LOCAL_GPU_VALUES,
  type LocalEmbedderOptions,
  type LocalGpu,
  localSettings,
} from "./settings.js";
