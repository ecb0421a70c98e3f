import type { LanguageModelProvider, ProviderCheck, ProviderSettings } from "@engram/core/driver";
import {
  chatOptionsFromSettings,
  localLlmSettings,
  resolveLocalChatOptions,
} from "./chat-settings.js";
import { messageOf, PROVIDER_ID } from "./errors.js";
import { isGgufFile } from "./provider.js";

/**
 * The `local` language-model provider: a GGUF chat model run in-process by node-llama-cpp.
 * `check` is ok when `llm.providers.local.modelPath` (or `ENGRAM_LLM_LOCAL_MODEL_PATH`) names an
 * existing GGUF file, and never touches the network; `create` reads the header, the weights load
 * on first use.
 *
 * @example
 * ```json
 * { "llm": { "provider": "local", "providers": { "local": { "modelPath": "~/models/Qwen3-4B-Q4_K_M.gguf" } } } }
 * ```
 */
export const localLanguageModelProvider: LanguageModelProvider = {
  id: PROVIDER_ID,
  settings: localLlmSettings,
  async check(settings: ProviderSettings): Promise<ProviderCheck> {
    let path: string;
    try {
      path = resolveLocalChatOptions(chatOptionsFromSettings(settings)).modelPath;
    } catch (error) {
      return { ok: false, reason: messageOf(error) };
    }
    return isGgufFile(path);
  },
  async create(settings: ProviderSettings) {
    const { localLanguageModel } = await import("./chat-model.js");
    return localLanguageModel(chatOptionsFromSettings(settings));
  },
};
