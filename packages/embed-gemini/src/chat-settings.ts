import type { ProviderSetting } from "@engram/core/driver";
import { GEMINI_DEFAULTS, geminiSettings } from "./settings.js";

/** Defaults of the Gemini language model. */
export const GEMINI_CHAT_DEFAULTS = {
  model: "gemini-2.5-flash",
  /** Generation takes longer than embedding. */
  timeoutMs: 120_000,
} as const;

/**
 * Every setting of the Gemini language model, as `llm.providers.gemini.<name>` and as
 * `ENGRAM_LLM_GEMINI_<NAME>`. The key, base URL and headers also read the embedding provider's
 * `ENGRAM_GEMINI_*` variables (and `GEMINI_API_KEY` / `GOOGLE_API_KEY`); `model`, `timeoutMs`,
 * `thinkingBudget` and `contextTokens` do not.
 */
export const geminiLlmSettings = {
  apiKey: geminiSettings.apiKey,
  baseUrl: {
    ...geminiSettings.baseUrl,
    description: `API base URL, without the version (default ${GEMINI_DEFAULTS.baseUrl})`,
  },
  model: {
    type: "string",
    scoped: true,
    description: `generation model (default ${GEMINI_CHAT_DEFAULTS.model})`,
  },
  headers: geminiSettings.headers,
  timeoutMs: {
    type: "number",
    scoped: true,
    description: `how long one request may take, in ms (default ${GEMINI_CHAT_DEFAULTS.timeoutMs})`,
  },
  thinkingBudget: {
    type: "number",
    scoped: true,
    description:
      "tokens the model may spend thinking before it answers (0 turns thinking off on 2.5 Flash); unset: the model's default. Thinking tokens are billed as output",
  },
  contextTokens: {
    type: "number",
    scoped: true,
    description: "the model's context window in tokens, when you want engram to size prompts to it",
  },
} as const satisfies Record<string, ProviderSetting>;

/** The name of a Gemini language-model setting. */
export type GeminiLlmSettingName = keyof typeof geminiLlmSettings;
