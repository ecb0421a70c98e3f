import type { ConsolidationPlan } from "./types.js";

/** The text each of a plan's puts writes, by workspace path. */
export function blobsOf(plan: ConsolidationPlan): Map<string, string> {
  const out = new Map<string, string>();
  for (const step of plan.lifecycle.steps) {
    if (step.kind !== "put" || step.after === null) continue;
    const text = plan.lifecycle.contents[step.after];
    if (text !== undefined) out.set(step.path, text);
  }
  return out;
}
