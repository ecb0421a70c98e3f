import type { LanguageModelProvider, ProviderSettings } from "@engram/core/driver";
import type { GeminiLanguageModelOptions } from "./chat-options.js";
import { geminiLlmSettings } from "./chat-settings.js";
import { geminiProvider } from "./provider.js";
import { GEMINI_PROVIDER_ID } from "./settings.js";

/**
 * The Gemini language-model provider as engram's config sees it: `"llm": { "provider": "gemini" }`,
 * with settings under `llm.providers.gemini` or in `ENGRAM_LLM_GEMINI_*` variables (the key also
 * from `GEMINI_API_KEY` / `GOOGLE_API_KEY`). `check` only looks for a key; the SDK loads in `create`.
 */
export const geminiLanguageModelProvider: LanguageModelProvider = {
  id: GEMINI_PROVIDER_ID,
  settings: geminiLlmSettings,
  check: (settings) => geminiProvider.check(settings),
  async create(settings: ProviderSettings) {
    const { createGeminiLanguageModel } = await import("./chat-model.js");
    const options: Record<string, unknown> = {};
    for (const name of Object.keys(geminiLlmSettings)) {
      if (settings[name] !== undefined) options[name] = settings[name];
    }
    return createGeminiLanguageModel(options as GeminiLanguageModelOptions);
  },
};
