import { createHash } from "node:crypto";
import {
  type ApplyResult,
  applyPlan,
  type CollectedEntry,
  EngramError,
  type Memory,
  type PlanItem,
  planLifecycle,
  undoLastApply,
} from "@engram/core";

/** A planned move as the page shows it, with an id to approve it by. */
export interface ShownMove {
  /** Stable for the same rule, source and target: what an approval names. */
  id: string;
  rule: string;
  action: PlanItem["action"];
  kind: PlanItem["kind"];
  from: string;
  to: string;
  reason: string;
  collision?: PlanItem["collision"];
  collected?: CollectedEntry[];
}

/** The lifecycle plan as the curate page shows it. */
export interface ShownPlan {
  createdAt: string;
  moves: ShownMove[];
  /** Journal steps the full plan would take. */
  steps: number;
  skipped: Array<{ rule: string; path: string; reason: string }>;
}

/** What applying the approved moves did. */
export interface ApprovedApply {
  result: ApplyResult;
  approved: number;
  rejected: number;
}

/** The id of a move: its rule, source and target, hashed. */
export function moveId(item: Pick<PlanItem, "rule" | "from" | "to">): string {
  return createHash("sha256")
    .update(`${item.rule}\n${item.from}\n${item.to}`)
    .digest("hex")
    .slice(0, 16);
}

/** `engram lifecycle plan`, each move with its id. */
export async function showLifecyclePlan(memory: Memory): Promise<ShownPlan> {
  const plan = await planLifecycle(memory);
  return {
    createdAt: plan.createdAt,
    moves: plan.items.map(shown),
    steps: plan.steps.length,
    skipped: plan.skipped,
  };
}

/**
 * Apply only the approved moves (by {@link moveId}) through `applyPlan`, the CLI's journaled
 * apply. The plan is made again with core's `select` so that the rejected moves are left out
 * whole (their folders, stubs and merges too); if any approved move is no longer planned, or is
 * now planned differently (another target), nothing is applied: the person sees the new plan.
 *
 * @throws EngramError `INVALID_ARGUMENT` when nothing is approved; `LIFECYCLE_CONFLICT` when the
 * plan changed since it was shown (or while it was applied).
 */
export async function applyApprovedMoves(
  memory: Memory,
  approvedIds: readonly string[],
): Promise<ApprovedApply> {
  const approved = new Set(approvedIds);
  if (approved.size === 0) {
    throw new EngramError("INVALID_ARGUMENT", "no move is approved", {
      hint: "tick the moves to carry out, then apply",
    });
  }
  const full = await planLifecycle(memory);
  const chosen = full.items.filter((i) => approved.has(moveId(i)));
  if (chosen.length !== approved.size) throw changed();
  const keys = new Set(chosen.map((i) => `${i.rule}\n${i.from}`));
  const subset = await planLifecycle(memory, {
    select: (move) => keys.has(`${move.rule}\n${move.from}`),
  });
  const planned = new Set(subset.items.map(moveId));
  if (planned.size !== approved.size || [...approved].some((id) => !planned.has(id)))
    throw changed();
  const result = await applyPlan(memory, subset);
  return { result, approved: chosen.length, rejected: full.items.length - chosen.length };
}

/** `engram lifecycle undo`: reverse the last apply. */
export function undoLifecycle(memory: Memory): Promise<ApplyResult> {
  return undoLastApply(memory);
}

function shown(item: PlanItem): ShownMove {
  return {
    id: moveId(item),
    rule: item.rule,
    action: item.action,
    kind: item.kind,
    from: item.from,
    to: item.to,
    reason: item.reason,
    ...(item.collision ? { collision: item.collision } : {}),
    ...(item.collected?.length ? { collected: item.collected } : {}),
  };
}

function changed(): EngramError {
  return new EngramError("LIFECYCLE_CONFLICT", "the lifecycle plan changed since it was shown", {
    hint: "review the new plan and approve its moves again",
  });
}
