import type { LifecycleHost } from "../lifecycle/host.js";
import type { LanguageModel } from "../model/language-model.js";
import {
  type ApplyConsolidationOptions,
  applyConsolidation,
  type ConsolidationResult,
  savePlan,
} from "./apply.js";
import { hostModel, passModel } from "./model-source.js";
import { planConsolidation } from "./plan.js";
import type { ConsolidationPlan } from "./types.js";

/** Options of `Memory.consolidate`. */
export interface MemoryConsolidateOptions extends Omit<ApplyConsolidationOptions, "model"> {
  /** `plan` (default): show what a pass would do (saved, so a later apply does exactly that); `apply`: do it. */
  mode?: "plan" | "apply";
  /** The model (default: the memory's `languageModel`; null: the deterministic mode). */
  model?: LanguageModel | null;
}

/** `Memory.consolidate`: plan (and save) or apply a pass with the memory's model by default. */
export async function consolidateMemory(
  host: LifecycleHost,
  options: MemoryConsolidateOptions = {},
): Promise<ConsolidationPlan | ConsolidationResult> {
  const { mode = "plan", ...rest } = options;
  const chosen = rest.model === undefined ? hostModel(host) : rest.model;
  const model = chosen
    ? passModel(chosen, rest.maxTokens ?? host.config.consolidation.maxTokens)
    : null;
  if (mode === "apply") return applyConsolidation(host, { ...rest, model });
  const plan = await planConsolidation(host, { ...rest, model });
  await savePlan(host, plan);
  return plan;
}
