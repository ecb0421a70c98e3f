import type { Memory } from "@engram/core";
import { UiRefusal } from "../errors.js";

/**
 * The adapter between the curate page and core's consolidation, forget and update (the curation
 * work: `planConsolidation` / `applyConsolidation` / `undoConsolidation`, `forget` / `undoForget`,
 * `updateMemory` / `undoUpdate`). The page, its routes and its tests talk only to this module.
 *
 * STATUS: the @engram/core this package builds against does not export those functions yet
 * (they are being built on the `consolidation` branch). Until it does, {@link consolidation} says
 * `available: false` with the reason, the page shows that instead of the controls, and the API
 * answers 501. Wiring it up is this file alone: call the core functions in the methods below.
 */
export interface ConsolidationAdapter {
  /** False while core lacks the API; `missing` says what. */
  readonly available: boolean;
  readonly missing?: string;
  /** The consolidation plan: operations with ids, refusals, a unified diff per file. */
  plan(memory: Memory): Promise<ShownConsolidation>;
  /** Apply only the approved operations (by id). */
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

const MISSING =
  "this build of @engram/core has no consolidation, forget or update API yet (planConsolidation, applyConsolidation, undoConsolidation, forget, undoForget, updateMemory, undoUpdate)";

function unavailable(): Promise<never> {
  return Promise.reject(
    new UiRefusal(
      501,
      "NOT_AVAILABLE",
      MISSING,
      "update @engram/core; lifecycle curation works meanwhile",
    ),
  );
}

/** The consolidation adapter of this build. */
export const consolidation: ConsolidationAdapter = {
  available: false,
  missing: MISSING,
  plan: unavailable,
  applyApproved: unavailable,
  undo: unavailable,
  forget: unavailable,
  undoForget: unavailable,
  update: unavailable,
  undoUpdate: unavailable,
};
