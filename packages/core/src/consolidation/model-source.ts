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

/**
 * The model a pass talks to: a chain's capped run (`run({ maxTokens })`: every call of the pass
 * shares one token budget, enforced by the chain too) when the model is core's chain, else the
 * model itself.
 */
export function passModel(model: LanguageModel, maxTokens: number | undefined): LanguageModel {
  const run = (model as { run?: (o: { maxTokens?: number }) => LanguageModel }).run;
  return typeof run === "function" ? run.call(model, maxTokens ? { maxTokens } : {}) : model;
}
