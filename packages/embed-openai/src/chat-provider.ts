import type { LanguageModelProvider } from "@engram/core/driver";
import type { OpenAILanguageModelOptions } from "./chat-options.js";
import { OPENAI_LLM_SETTINGS } from "./chat-settings.js";
import { checkOpenAI } from "./provider.js";
import { PROVIDER_ID } from "./settings.js";

/**
 * The `openai` language-model provider, as engram's config sees it:
 * `{ "llm": { "provider": "openai", "model": "gpt-4.1-mini", "providers": { "openai": { … } } } }`,
 * or `ENGRAM_LLM_PROVIDER=openai` with `OPENAI_API_KEY`. Runs with an API key, or with a `baseUrl`
 * other than api.openai.com (local servers need none). The model code and the `openai` SDK load
 * in `create`.
 */
export const openaiLanguageModelProvider: LanguageModelProvider = {
  id: PROVIDER_ID,
  settings: OPENAI_LLM_SETTINGS,
  check: checkOpenAI,
  async create(settings) {
    const { openaiLanguageModel } = await import("./chat-model.js");
    return openaiLanguageModel(settings as OpenAILanguageModelOptions);
  },
};
