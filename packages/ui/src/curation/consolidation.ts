import { createHash } from "node:crypto";
import {
  applyConsolidation,
  type ConsolidationPlan,
  EngramError,
  formatRef,
  type Memory,
  type Operation,
  planConsolidation,
} from "@engram/core";
import { hostModel, selectOperations } from "@engram/core/internal";

/** One proposed operation as the page shows it. */
export interface ShownOperation {
  /** Stable for the same change (kind, lines, text): what an approval names. */
  id: string;
  /** Core's id in this plan (`op-1`, …), as `engram consolidate plan` prints it. */
  ref: string;
  op: Operation["op"];
  /** `path:lines` of the entries it changes. */
  targets: string[];
  /** `path:lines` of the notes it comes from. */
  sources: string[];
  text: string;
  reason: string;
  origin: Operation["origin"];
  /** Where the text lands after the apply, `path:lines`. */
  placed?: string;
}

/** The consolidation plan as the page shows it. */
export interface ShownConsolidation {
  passId: string;
  mode: "model" | "deterministic";
  operations: ShownOperation[];
  refused: Array<{ op: string; code: string; why: string }>;
  /** A unified diff per file the apply writes. */
  diffs: Array<{ path: string; diff: string }>;
  /** Queries that would no longer find their lines (the apply is refused while any are). */
  guardFailures: string[];
}

/** What applying the approved operations did. */
export interface ApprovedConsolidation {
  applyId: string;
  approved: number;
  rejected: number;
  /** Files the apply changed. */
  paths: string[];
  /** Where the pass's report is (the rejected operations are listed there as not approved). */
  report: string;
}

/**
 * The plans shown, per memory: with a language model, what the last {@link planPass} made
 * (planning spends tokens, so it is made when asked and kept until applied).
 */
const planned = new WeakMap<Memory, ConsolidationPlan>();

/** The id of an operation: its kind, the lines it changes and cites, and its text, hashed. */
export function operationId(o: Operation): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        o.op,
        o.targets.map(formatRef),
        o.sources.map(formatRef),
        o.file ?? "",
        o.section ?? "",
        o.text,
      ]),
    )
    .digest("hex")
    .slice(0, 16);
}

/**
 * The plan to show, as `engram consolidate plan` makes it: without a language model (the
 * deterministic mode) a fresh one; with a model, the one the last {@link planPass} made, or null
 * before (the page asks first).
 */
export async function showConsolidation(memory: Memory): Promise<ShownConsolidation | null> {
  const plan = hostModel(memory)
    ? (planned.get(memory) ?? null)
    : await planConsolidation(memory, { model: null });
  return plan ? shown(plan) : null;
}

/** Plan a pass now with the memory's model (or deterministically) and keep it to show and apply. */
export async function planPass(memory: Memory): Promise<{ passId: string; operations: number }> {
  const plan = await planConsolidation(memory, { model: hostModel(memory) });
  planned.set(memory, plan);
  return { passId: plan.passId, operations: plan.operations.length };
}

/**
 * Apply only the approved operations (by {@link operationId}) through `applyConsolidation`, the
 * CLI's journaled apply. Without a model the plan is made again (as the lifecycle view does);
 * with one, the plan {@link planPass} kept is used (the model is not asked again). Core's
 * `selectOperations` narrows the plan to the approved operations, working out the diffs, the
 * recall guard and the report again; the others are reported as not approved. If an approved
 * operation is no longer in the plan, nothing is applied: the person sees the new plan.
 *
 * @throws EngramError `INVALID_ARGUMENT` when nothing is approved; `LIFECYCLE_CONFLICT` when the
 * plan changed since it was shown (or a file it read changed); `RECALL_GUARD` when the approved
 * operations would make memory unfindable.
 */
export async function applyApprovedOperations(
  memory: Memory,
  approvedIds: readonly string[],
): Promise<ApprovedConsolidation> {
  const approved = new Set(approvedIds);
  if (approved.size === 0) {
    throw new EngramError("INVALID_ARGUMENT", "no operation is approved", {
      hint: "tick the operations to carry out, then apply",
    });
  }
  const model = hostModel(memory);
  const full = model ? planned.get(memory) : await planConsolidation(memory, { model: null });
  if (!full) {
    throw new EngramError("LIFECYCLE_CONFLICT", "there is no consolidation plan to apply", {
      hint: "plan a pass first, then approve its operations",
    });
  }
  const chosen = full.operations.filter((o) => approved.has(operationId(o)));
  const found = new Set(chosen.map(operationId));
  if ([...approved].some((id) => !found.has(id))) {
    throw new EngramError(
      "LIFECYCLE_CONFLICT",
      "the consolidation plan changed since it was shown",
      { hint: "review the new plan and approve its operations again" },
    );
  }
  const plan =
    chosen.length === full.operations.length
      ? full
      : await selectOperations(
          memory,
          full,
          chosen.map((o) => o.id),
        );
  const result = await applyConsolidation(memory, { plan });
  planned.delete(memory);
  return {
    applyId: result.applyId,
    approved: chosen.length,
    rejected: full.operations.length - chosen.length,
    paths: [...result.paths],
    report: plan.report,
  };
}

function shown(plan: ConsolidationPlan): ShownConsolidation {
  return {
    passId: plan.passId,
    mode: plan.mode,
    operations: plan.operations.map((o) => ({
      id: operationId(o),
      ref: o.id,
      op: o.op,
      targets: o.targets.map(formatRef),
      sources: o.sources.map(formatRef),
      text: o.text,
      reason: o.reason,
      origin: o.origin,
      ...(o.placed ? { placed: formatRef(o.placed) } : {}),
    })),
    refused: plan.refused.map((r) => ({ op: r.operation.op, code: r.code, why: r.why })),
    diffs: plan.diffs,
    guardFailures: plan.guard.failed.map((f) => `"${f.query}" → ${formatRef(f.line)}`),
  };
}
