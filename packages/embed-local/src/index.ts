export { type LocalEmbedder, localEmbedder } from "./embedder.js";
export { PROVIDER_ID } from "./errors.js";
export { type ModelHeader, readModelHeader } from "./gguf-header.js";
export { isHfUri } from "./hf-uri.js";
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
