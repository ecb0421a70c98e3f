import { stat } from "node:fs/promises";
import {
  type EmbeddingProvider,
  isEngramError,
  type ProviderCheck,
  type ProviderSettings,
  type RerankerProvider,
} from "@engram/core/driver";
import { messageOf, PROVIDER_ID } from "./errors.js";
import { hasGgufMagic } from "./gguf-header.js";
import { checkGgufLayout, GgufLayoutError } from "./gguf-layout.js";
import { findCachedHfModel } from "./hf-models.js";
import { isHfUri } from "./hf-uri.js";
import { localSettings, optionsFromSettings, resolveLocalOptions } from "./settings.js";

/**
 * The `local` embedding provider: a GGUF model run in-process by node-llama-cpp. `check` is ok
 * when `modelPath` names an existing GGUF file (an `hf:` URI only once it is in `modelCacheDir`),
 * and never touches the network; `create` reads the model header, the weights load on first use.
 *
 * @example
 * ```json
 * {
 *   "embedding": {
 *     "provider": "local",
 *     "providers": { "local": { "modelPath": "~/models/bge-small-en-v1.5-q8_0.gguf" } }
 *   }
 * }
 * ```
 */
export const localProvider: EmbeddingProvider = {
  id: PROVIDER_ID,
  settings: localSettings,
  check: checkLocal,
  async create(settings: ProviderSettings) {
    const { localEmbedder } = await import("./embedder.js");
    return localEmbedder(optionsFromSettings(settings));
  },
};

/**
 * The `local` reranker provider: a GGUF reranking model (bge-reranker, jina-reranker, Qwen3-Reranker
 * in GGUF) run in-process by node-llama-cpp's ranking context. `check` is ok when `modelPath`
 * names an existing GGUF file; the weights load on the first search that reranks.
 *
 * @example
 * ```json
 * {
 *   "search": {
 *     "rerank": {
 *       "provider": "local",
 *       "providers": { "local": { "modelPath": "~/models/bge-reranker-v2-m3-Q8_0.gguf" } }
 *     }
 *   }
 * }
 * ```
 */
export const localRerankerProvider: RerankerProvider = {
  id: PROVIDER_ID,
  settings: Object.fromEntries(
    Object.entries(localSettings).filter(([key]) => key !== "batchSize" && key !== "modelCacheDir"),
  ),
  check: checkLocal,
  async create(settings: ProviderSettings) {
    const { batchSize: _batch, modelCacheDir: _cache, ...options } = optionsFromSettings(settings);
    const { localReranker } = await import("./reranker.js");
    return localReranker(options);
  },
};

async function checkLocal(settings: ProviderSettings): Promise<ProviderCheck> {
  let options: ReturnType<typeof resolveLocalOptions>;
  try {
    options = resolveLocalOptions(optionsFromSettings(settings));
  } catch (error) {
    return { ok: false, reason: isEngramError(error) ? error.describe() : messageOf(error) };
  }
  let path = options.modelPath;
  if (isHfUri(path)) {
    const cached = await findCachedHfModel(path, options.modelCacheDir);
    if (!cached.found) {
      return {
        ok: false,
        reason: cached.invalidUri
          ? cached.reason
          : `${path} is not in ${options.modelCacheDir} yet (creating the provider downloads it, which needs the network)`,
      };
    }
    path = cached.path;
  }
  return isGgufFile(path);
}

/**
 * Ok when `path` is a readable file that starts with the GGUF magic and whose header's counts and
 * lengths fit in the file (reads the header, not the weights).
 */
export async function isGgufFile(path: string): Promise<ProviderCheck> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, reason: `model path is not a file: ${path}` };
    if (!(await hasGgufMagic(path))) return { ok: false, reason: `${path} is not a GGUF file` };
    await checkGgufLayout(path, info.size);
    return { ok: true };
  } catch (error) {
    if (error instanceof GgufLayoutError) {
      return { ok: false, reason: `${path} is a damaged GGUF file: ${error.message}` };
    }
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return {
      ok: false,
      reason: missing
        ? `model file not found: ${path}`
        : `cannot read ${path}: ${messageOf(error)}`,
    };
  }
}
