import type { EngramConfig } from "../config/schema.js";
import type { ProviderDescriptor } from "../embedding/provider.js";
import { selectProviders } from "../embedding/select.js";
import type { LanguageModel } from "./language-model.js";

/**
 * A language-model provider driver, as the config and auto-selection see it — the same shape as
 * an {@link EmbeddingProvider} (id, settings with their variables and secrets, a `check` that
 * never calls the network, `create`). A provider package exports one beside its embedding
 * provider (e.g. `openaiLanguageModelProvider` from `@engram/embed-openai`); an integrator can
 * write their own. Loading the descriptor must be cheap: import the backend SDK inside `create`.
 */
export interface LanguageModelProvider extends ProviderDescriptor<LanguageModel> {}

/**
 * Language-model drivers by id, each loaded on demand; a loader resolves to undefined when its
 * package is not installed (the CLI's `LANGUAGE_MODELS`).
 */
export type LanguageModelRegistry = Readonly<
  Record<string, () => Promise<LanguageModelProvider | undefined>>
>;

/** What {@link selectLanguageModels} chose and why. */
export interface LanguageModelSelection {
  /** The primary first, then the usable fallbacks; empty: no model. */
  models: LanguageModel[];
  /** Why providers were passed over (`llm.provider is none`, no API key, no model file, …). */
  notes: string[];
  /** A provider named explicitly that cannot run: shown once by hosts, and in `status`. */
  warnings: string[];
}

/**
 * Choose and create the language models `config.llm` asks for, by the rules embeddings use
 * (`selectEmbedders`): `none` (the default: no model reads the user's memory unless they choose
 * one), `auto` (local → openai → gemini, the first whose check passes), or a provider id — one
 * that cannot run (no key, no model file) is passed over with a warning and the fallbacks are
 * tried; `fallback` providers that cannot run are skipped with a note, `none` ends the list.
 *
 * `ENGRAM_LLM_PROVIDER`, `ENGRAM_LLM_MODEL` and `ENGRAM_LLM_FALLBACK` (comma-separated) override
 * the config. Each provider's settings come from `ENGRAM_LLM_<PROVIDER>_<SETTING>`, then
 * `ENGRAM_<PROVIDER>_<SETTING>` (shared with embeddings: `ENGRAM_OPENAI_BASE_URL` points both at
 * the same server; never for `scoped` settings such as the model), then `llm.providers.<id>`,
 * then the conventional variables (`OPENAI_API_KEY`, `GEMINI_API_KEY`, …).
 *
 * @throws EngramError `CONFIG_INVALID` for an unknown provider id.
 */
export async function selectLanguageModels(
  llm: EngramConfig["llm"],
  registry: LanguageModelRegistry,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<LanguageModelSelection> {
  const { created, notes, warnings } = await selectProviders(llm, registry, env, {
    section: "llm",
    envPrefix: "LLM",
    noun: "language model provider",
    overrides: "ENGRAM_LLM",
    meanwhile: "engram works without a language model meanwhile",
  });
  return { models: created, notes, warnings };
}
