import { ModelError } from "@engram/core/driver";
import { GEMINI_CHAT_DEFAULTS } from "./chat-settings.js";
import { bareModelName } from "./models.js";
import { checkBaseUrl, checkHeaders, invalid, nonEmpty, positiveInteger, text } from "./options.js";
import { GEMINI_DEFAULTS, GEMINI_PROVIDER_ID } from "./settings.js";

/** Options of {@link geminiLanguageModel}; the same names as `llm.providers.gemini.*`. */
export interface GeminiLanguageModelOptions {
  /** Gemini API key. Default (in {@link geminiLanguageModel}): `GEMINI_API_KEY`, then `GOOGLE_API_KEY`. */
  apiKey?: string;
  /** API base URL without the version (default Google's). */
  baseUrl?: string;
  /** Generation model (default `gemini-2.5-flash`). */
  model?: string;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** How long one request may take, in ms (default 120000). */
  timeoutMs?: number;
  /** Thinking tokens allowed before the answer (0: off on 2.5 Flash); unset: the model's default. */
  thinkingBudget?: number;
  /** The model's context window in tokens, when known. */
  contextTokens?: number;
}

/** {@link GeminiLanguageModelOptions} checked, with defaults applied. */
export interface ResolvedGeminiChatOptions {
  apiKey: string;
  baseUrl: string;
  model: string;
  headers: Record<string, string>;
  timeoutMs: number;
  thinkingBudget: number | undefined;
  contextTokens: number | undefined;
}

/**
 * Check the options and apply the defaults.
 *
 * @throws ModelError `auth` when there is no API key.
 * @throws EngramError `CONFIG_INVALID` naming `llm.providers.gemini.<setting>`.
 */
export function resolveGeminiChatOptions(
  options: GeminiLanguageModelOptions,
): ResolvedGeminiChatOptions {
  const apiKey = nonEmpty(options.apiKey);
  if (apiKey === undefined) {
    throw new ModelError("auth", GEMINI_PROVIDER_ID, "no API key", {
      hint: "set GEMINI_API_KEY (or GOOGLE_API_KEY, or llm.providers.gemini.apiKey); create a key at https://aistudio.google.com/apikey",
    });
  }
  const model = bareModelName(text(options.model, "model", "llm") ?? GEMINI_CHAT_DEFAULTS.model);
  if (model === "" || /\.\.|[?&#/]/.test(model)) {
    throw invalid(
      "model",
      `is not a model name: ${JSON.stringify(options.model)}`,
      "use a name such as gemini-2.5-flash",
      "llm",
    );
  }
  const budget = options.thinkingBudget;
  if (budget !== undefined && (!Number.isInteger(budget) || budget < -1)) {
    throw invalid(
      "thinkingBudget",
      `must be a whole number of tokens (0 = off, -1 = dynamic), got ${JSON.stringify(budget)}`,
      "fix thinkingBudget",
      "llm",
    );
  }
  return {
    apiKey,
    baseUrl: checkBaseUrl(
      text(options.baseUrl, "baseUrl", "llm") ?? GEMINI_DEFAULTS.baseUrl,
      "llm",
    ),
    model,
    headers: checkHeaders(options.headers, "llm"),
    timeoutMs:
      positiveInteger(options.timeoutMs, "timeoutMs", "llm") ?? GEMINI_CHAT_DEFAULTS.timeoutMs,
    thinkingBudget: budget,
    contextTokens: positiveInteger(options.contextTokens, "contextTokens", "llm"),
  };
}
