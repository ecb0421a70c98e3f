import type { EmbeddingProvider, ProviderSettings } from "@engram/core/driver";
import type { GeminiEmbedderOptions } from "./options.js";
import { GEMINI_PROVIDER_ID, geminiSettings } from "./settings.js";

/**
 * The Gemini provider as engram's config sees it: `"embedding": { "provider": "gemini" }`, with
 * settings under `embedding.providers.gemini` or in `ENGRAM_GEMINI_*` variables. `check` only
 * looks for a key (no network); the SDK loads in `create`.
 */
export const geminiProvider: EmbeddingProvider = {
  id: GEMINI_PROVIDER_ID,
  settings: geminiSettings,
  check(settings) {
    return hasText(settings.apiKey)
      ? { ok: true }
      : { ok: false, reason: "no GEMINI_API_KEY or GOOGLE_API_KEY" };
  },
  async create(settings) {
    // Core resolved the settings from config and environment; don't read process.env again.
    const { createGeminiEmbedder } = await import("./embedder.js");
    return createGeminiEmbedder(settingsToOptions(settings));
  },
};

/** Resolved settings as factory options (types were checked by `resolveProviderSettings`). */
function settingsToOptions(settings: ProviderSettings): GeminiEmbedderOptions {
  const options: Record<string, unknown> = {};
  for (const name of Object.keys(geminiSettings)) {
    if (settings[name] !== undefined) options[name] = settings[name];
  }
  return options as GeminiEmbedderOptions;
}

function hasText(value: unknown): boolean {
  return typeof value === "string" && value.trim() !== "";
}
