import type { LanguageModel } from "../model/language-model.js";

/**
 * The language model a memory offers for consolidation: its `languageModel` (the resilient chain
 * built from the config's `llm` section), or null when it has none — the deterministic mode.
 * The one place consolidation looks for a model, so the wiring can change without touching the
 * rest.
 */
export function hostModel(host: object): LanguageModel | null {
  const model = (host as { languageModel?: unknown }).languageModel;
  return model && typeof (model as LanguageModel).generate === "function"
    ? (model as LanguageModel)
    : null;
}
