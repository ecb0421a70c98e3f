import type { LifecyclePlan } from "../lifecycle/plan.js";
import type { LineRef } from "./citations.js";
import type { GuardResult } from "./guard.js";

/**
 * What a consolidation operation does to long-term (curated) memory:
 *
 * - `ADD`: a new fact appended to a long-term file (optionally inside a named section).
 * - `UPDATE`: an existing entry reworded, or new detail merged into it; the old text is archived.
 * - `SUPERSEDE`: an existing entry is contradicted by newer notes: archived, replaced by the new
 *   fact with a pointer to where the old one went.
 * - `MERGE`: entries already in long-term memory that say the same thing become one; the others
 *   are archived.
 * - `SUMMARY`: a summary of a day or session, written to the pass's report (`memory/dreams/`).
 */
export type OperationKind = "ADD" | "UPDATE" | "SUPERSEDE" | "MERGE" | "SUMMARY";

/** Who proposed an operation: the model, or one of the deterministic passes. */
export type OperationOrigin = "model" | "duplicates" | "recall" | "important";

/** One proposed change, citing its sources. */
export interface Operation {
  op: OperationKind;
  /**
   * UPDATE and SUPERSEDE: the one entry changed. MERGE: the entries merged, the first keeping the
   * merged text. ADD and SUMMARY: none.
   */
  targets: LineRef[];
  /** The new text (ADD, UPDATE, SUPERSEDE, MERGE: the entry as it will read; SUMMARY: the summary). */
  text: string;
  /** The lines the text comes from (new notes, or the merged entries). */
  sources: LineRef[];
  /** ADD: the long-term file to add to (default: the consolidation target file). */
  file?: string;
  /** ADD: a heading of that file to add under (default: a new dated entry at the end). */
  section?: string;
  /** Why, in a few words (shown in the plan and the report). */
  reason: string;
  origin: OperationOrigin;
}

/** Why engram refused an operation. */
export type RefusalCode =
  | "invalid"
  | "lines-missing"
  | "not-shown"
  | "unsupported"
  | "drops-facts"
  | "private"
  | "forgotten"
  | "raw-log"
  | "not-curated"
  | "conflict"
  | "recall-guard"
  | "not-approved";

/** An operation engram refused, and why. */
export interface Refusal {
  operation: Operation;
  code: RefusalCode;
  /** One sentence naming the problem. */
  why: string;
  /** The facts dropped or unsupported, the lines missing, … */
  detail?: string[];
}

/** An ADD left out because long-term memory already says it. */
export interface Duplicate {
  operation: Operation;
  /** Where it already lives. */
  existing: LineRef;
  method: "exact" | "lexical" | "vector";
  similarity: number;
}

/** An accepted operation with where its text lands after the apply. */
export interface PlannedOperation extends Operation {
  /** `op-1`, `op-2`, … in plan order. */
  id: string;
  /** Where the text lands (ADD, UPDATE, SUPERSEDE, MERGE), 1-based lines of the new file. */
  placed?: LineRef;
  /** Where archived lines go (UPDATE, SUPERSEDE, MERGE). */
  archivedTo?: string;
}

/** New lines of one source file since the last pass. */
export interface NewMaterial {
  path: string;
  startLine: number;
  endLine: number;
  /** Lines in the stretch that are private (never shown to a model unless opted in). */
  privateLines: number;
  /** True when the model saw it (a token budget can stop short). */
  processed: boolean;
}

/** Tokens spent asking the model (estimated with core's estimator when it does not say). */
export interface TokenSpend {
  input: number;
  output: number;
  calls: number;
  /** The budget of the pass, when one was set. */
  budget?: number;
  /** True when the budget stopped the pass before every new line was read. */
  exhausted: boolean;
}

/** A consolidation plan: every change, its diff, what was refused, and the journal steps. */
export interface ConsolidationPlan {
  /** The pass's id: the apply id of the journal, named in the archive and the report. */
  passId: string;
  createdAt: string;
  mode: "model" | "deterministic";
  /** The model that proposed the operations (model mode). */
  model?: { id: string; model: string };
  operations: PlannedOperation[];
  refused: Refusal[];
  duplicates: Duplicate[];
  /** Near-duplicates left apart because their facts differ (e.g. two different ports). */
  keptApart: Array<{ a: LineRef; b: LineRef; facts: string[] }>;
  newMaterial: NewMaterial[];
  /** A unified diff per file the apply writes. */
  diffs: Array<{ path: string; diff: string }>;
  guard: GuardResult;
  tokens: TokenSpend;
  /** Set when the model failed midway: operations it proposed before stand, the rest waits. */
  modelError?: string;
  /** The report the apply writes. */
  report: string;
  /** Hashes of every file the plan read, to tell whether it still holds. */
  basis: Record<string, string | null>;
  /** The journal steps and contents (for the apply). */
  lifecycle: LifecyclePlan;
}
