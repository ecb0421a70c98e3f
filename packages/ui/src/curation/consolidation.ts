import type { Memory } from "@engram/core";
import * as core from "@engram/core";
import { UiRefusal } from "../errors.js";

/**
 * The adapter between the curate page and core's consolidation, forget and update (the curation
 * work: `planConsolidation` / `applyConsolidation` / `undoConsolidation`, `forget` /
 * `undoForget`, `updateMemory` / `undoUpdate`, `hostModel`). The page, its routes and its tests
 * talk only to this module.
 *
 * STATUS: that API is being built beside this package and is not in every build of
 * `@engram/core` yet. This module looks for it at run time ({@link consolidation}`.available`):
 * with it, everything below calls it as `engram consolidate|forget|update` do; without it, the
 * page says what is missing, the routes answer 501 and the forget/edit controls stay hidden.
 * Once core exports it everywhere, the look-up becomes plain imports (this file alone).
 *
 * One thing core cannot do yet: apply part of a consolidation plan. Approving every operation
 * applies the plan exactly as shown; approving only some is refused (501) until core can plan a
 * chosen subset of a shown plan's operations, as `planLifecycle`'s `select` does for moves.
 */
export interface ConsolidationAdapter {
  /** False while core lacks the API; `missing` says what. */
  readonly available: boolean;
  readonly missing?: string;
  /**
   * The plan to show: in the deterministic mode (no language model configured) a fresh one; with
   * a model, the one the last {@link ConsolidationAdapter.makePlan} made (null before: planning
   * spends tokens, so the page asks first).
   */
  plan(memory: Memory): Promise<ShownConsolidation | null>;
  /** Plan a pass now (with the memory's model when it has one) and keep it to show and apply. */
  makePlan(memory: Memory): Promise<CurationOutcome>;
  /** Apply the shown plan's approved operations (by id). */
  applyApproved(memory: Memory, ids: readonly string[]): Promise<CurationOutcome>;
  /** Undo the last consolidation pass. */
  undo(memory: Memory): Promise<CurationOutcome>;
  /** Forget lines of long-term memory, with a reason (archived, undoable). */
  forget(memory: Memory, target: LineTarget, reason: string): Promise<CurationOutcome>;
  /** Bring back what the last forget removed. */
  undoForget(memory: Memory): Promise<CurationOutcome>;
  /** Replace lines of long-term memory by `text`, with a reason (the old text archived). */
  update(
    memory: Memory,
    target: LineTarget,
    text: string,
    reason: string,
  ): Promise<CurationOutcome>;
  /** Undo the last update. */
  undoUpdate(memory: Memory): Promise<CurationOutcome>;
}

/** Lines of a memory file, 1-based and inclusive. */
export interface LineTarget {
  path: string;
  startLine: number;
  endLine: number;
}

/** One proposed operation as the page shows it. */
export interface ShownOperation {
  id: string;
  op: "ADD" | "UPDATE" | "SUPERSEDE" | "MERGE" | "SUMMARY";
  /** `path:lines` of the entries it changes. */
  targets: string[];
  /** `path:lines` of the notes it comes from. */
  sources: string[];
  text: string;
  reason: string;
  origin: string;
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

/** What a curation write did, in words and paths. */
export interface CurationOutcome {
  summary: string;
  paths: string[];
}

/** `path:start-end` as core cites lines. */
interface LineRef {
  path: string;
  startLine: number;
  endLine: number;
}

/** The parts of core's `ConsolidationPlan` the page reads (the plan itself is applied as it is). */
interface CorePlan {
  passId: string;
  mode: "model" | "deterministic";
  operations: Array<{
    id: string;
    op: ShownOperation["op"];
    targets: LineRef[];
    sources: LineRef[];
    text: string;
    reason: string;
    origin: string;
    placed?: LineRef;
  }>;
  refused: Array<{ operation: { op: string }; code: string; why: string }>;
  diffs: Array<{ path: string; diff: string }>;
  guard: { failed: Array<{ query: string; line: LineRef }> };
}

/** What the writes return: at least the paths they changed. */
interface Changed {
  paths?: string[];
}

/** The functions of core this adapter calls, as the curation work defines them. */
interface CoreCuration {
  planConsolidation(host: Memory, options: { model: unknown }): Promise<CorePlan>;
  applyConsolidation(host: Memory, options: { plan: CorePlan; model: unknown }): Promise<Changed>;
  undoConsolidation(host: Memory): Promise<Changed>;
  forget(host: Memory, target: LineRef, options: { reason: string }): Promise<Changed>;
  undoForget(host: Memory): Promise<Changed>;
  updateMemory(
    host: Memory,
    target: LineRef,
    text: string,
    options: { reason: string },
  ): Promise<Changed>;
  undoUpdate(host: Memory): Promise<Changed>;
  hostModel(host: object): unknown;
}

const NAMES = [
  "planConsolidation",
  "applyConsolidation",
  "undoConsolidation",
  "forget",
  "undoForget",
  "updateMemory",
  "undoUpdate",
  "hostModel",
] as const;

/** The plans shown, per memory: what an approval refers to. */
const shown = new WeakMap<Memory, CorePlan>();

const cite = (r: LineRef) =>
  `${r.path}:${r.startLine === r.endLine ? r.startLine : `${r.startLine}-${r.endLine}`}`;

function toShown(plan: CorePlan): ShownConsolidation {
  return {
    passId: plan.passId,
    mode: plan.mode,
    operations: plan.operations.map((o) => ({
      id: o.id,
      op: o.op,
      targets: o.targets.map(cite),
      sources: o.sources.map(cite),
      text: o.text,
      reason: o.reason,
      origin: o.origin,
      ...(o.placed ? { placed: cite(o.placed) } : {}),
    })),
    refused: plan.refused.map((r) => ({ op: r.operation.op, code: r.code, why: r.why })),
    diffs: plan.diffs,
    guardFailures: plan.guard.failed.map((f) => `"${f.query}" → ${cite(f.line)}`),
  };
}

function outcome(summary: string, done: Changed): CurationOutcome {
  return { summary, paths: [...(done.paths ?? [])] };
}

/** The adapter over core's curation API `api`. */
export function coreAdapter(api: CoreCuration): ConsolidationAdapter {
  return {
    available: true,
    async plan(memory) {
      if (api.hostModel(memory)) {
        const kept = shown.get(memory);
        return kept ? toShown(kept) : null;
      }
      const plan = await api.planConsolidation(memory, { model: null });
      shown.set(memory, plan);
      return toShown(plan);
    },
    async makePlan(memory) {
      const plan = await api.planConsolidation(memory, { model: api.hostModel(memory) });
      shown.set(memory, plan);
      return {
        summary: `planned pass ${plan.passId}: ${plan.operations.length} operations`,
        paths: [],
      };
    },
    async applyApproved(memory, ids) {
      const plan = shown.get(memory);
      if (!plan) {
        throw new UiRefusal(
          409,
          "NO_PLAN",
          "there is no consolidation plan to apply",
          "plan a pass first, then approve its operations",
        );
      }
      const approved = new Set(ids);
      if (approved.size === 0) {
        throw new UiRefusal(
          400,
          "INVALID_ARGUMENT",
          "no operation is approved",
          "tick the operations to carry out, then apply",
        );
      }
      const all = plan.operations.map((o) => o.id);
      if (approved.size !== all.length || all.some((id) => !approved.has(id))) {
        throw new UiRefusal(
          501,
          "PARTIAL_NOT_AVAILABLE",
          "core's consolidation applies a plan whole: it cannot apply only some of its operations yet",
          "approve every operation, or leave the pass (the next one proposes them again)",
        );
      }
      const done = await api.applyConsolidation(memory, { plan, model: api.hostModel(memory) });
      shown.delete(memory);
      return outcome(`applied pass ${plan.passId}`, done);
    },
    async undo(memory) {
      return outcome("undid the last consolidation pass", await api.undoConsolidation(memory));
    },
    async forget(memory, target, reason) {
      requireReason(reason);
      return outcome(`forgot ${cite(target)}`, await api.forget(memory, target, { reason }));
    },
    async undoForget(memory) {
      return outcome("brought back what the last forget removed", await api.undoForget(memory));
    },
    async update(memory, target, text, reason) {
      requireReason(reason);
      return outcome(
        `updated ${cite(target)}`,
        await api.updateMemory(memory, target, text, { reason }),
      );
    },
    async undoUpdate(memory) {
      return outcome("undid the last update", await api.undoUpdate(memory));
    },
  };
}

function requireReason(reason: string): void {
  if (!reason.trim()) {
    throw new UiRefusal(
      400,
      "INVALID_ARGUMENT",
      "say why: a reason is kept with the archived lines",
      "fill in the reason",
    );
  }
}

/** The adapter when core lacks the API: says what is missing, refuses with 501. */
export function unavailableAdapter(missing: string): ConsolidationAdapter {
  const refuse = (): Promise<never> =>
    Promise.reject(
      new UiRefusal(
        501,
        "NOT_AVAILABLE",
        missing,
        "update @engram/core; lifecycle curation works meanwhile",
      ),
    );
  return {
    available: false,
    missing,
    plan: refuse,
    makePlan: refuse,
    applyApproved: refuse,
    undo: refuse,
    forget: refuse,
    undoForget: refuse,
    update: refuse,
    undoUpdate: refuse,
  };
}

const found = core as unknown as Partial<CoreCuration>;
const absent = NAMES.filter((name) => typeof found[name] !== "function");

/** The consolidation adapter of this build of `@engram/core`. */
export const consolidation: ConsolidationAdapter =
  absent.length === 0
    ? coreAdapter(found as CoreCuration)
    : unavailableAdapter(
        `this build of @engram/core has no consolidation, forget or update API yet (${absent.join(", ")})`,
      );
