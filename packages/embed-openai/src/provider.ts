import type { EmbeddingProvider, ProviderCheck, ProviderSettings } from "@engram/core/driver";
import { parseBaseUrl } from "./base-url.js";
import type { OpenAIEmbedderOptions } from "./options.js";
import { OPENAI_SETTINGS, PROVIDER_ID } from "./settings.js";

/**
 * The `openai` embedding provider, as engram's config and auto-selection see it:
 * `{ "embedding": { "provider": "openai", "providers": { "openai": { …settings } } } }`, or the
 * `ENGRAM_OPENAI_*` variables, or `OPENAI_API_KEY` / `OPENAI_BASE_URL`.
 *
 * Loading it is cheap: the embedder and the `openai` SDK are imported when `create` runs.
 */
export const openaiProvider: EmbeddingProvider = {
  id: PROVIDER_ID,
  settings: OPENAI_SETTINGS,
  check: checkOpenAI,
  async create(settings) {
    const { openaiEmbedder } = await import("./embedder.js");
    return openaiEmbedder(settings as OpenAIEmbedderOptions);
  },
};

/**
 * Whether the provider can run, without touching the network: yes with an API key, or with a
 * `baseUrl` other than api.openai.com (local servers need no key); otherwise
 * `{ ok: false, reason: "no OPENAI_API_KEY" }`.
 */
export function checkOpenAI(settings: ProviderSettings): ProviderCheck {
  const apiKey = settings.apiKey;
  if (typeof apiKey === "string" && apiKey.trim()) return { ok: true };
  const baseUrl = settings.baseUrl;
  try {
    const parsed = parseBaseUrl(typeof baseUrl === "string" ? baseUrl : undefined);
    return parsed.isOpenAI ? { ok: false, reason: "no OPENAI_API_KEY" } : { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
