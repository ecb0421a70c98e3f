import { randomBytes } from "node:crypto";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { Pacer } from "../workspace/pacer.js";
import { workspacePath } from "./files.js";
import type { LifecycleHost } from "./host.js";
import { hostNow, syncIndex } from "./host.js";
import type { CollectedEntry } from "./plan.js";
import { forgetProjectCandidates, rememberProjectCandidates } from "./project-candidates.js";
import {
  type AuditEntry,
  audit,
  blobs,
  readStateJson,
  readStateJsonSync,
  removeState,
  STATE_FILES,
  statePath,
  writeStateJson,
} from "./state.js";
import {
  inverse,
  revertPartial,
  runStep,
  type Step,
  type StepHook,
  settleStep,
  stateOf,
  TEMP_FILE_RE,
  touched,
} from "./steps.js";

/** What a journal (or an undo record) says each group of steps was for. */
export interface JournalItem {
  rule: string;
  action: string;
  reason: string;
  from: string;
  to?: string;
  /** Decisions and lessons this item makes promotion candidates. */
  collected?: CollectedEntry[];
}

/** `.engram/lifecycle/journal.json`: written before the first file is touched. */
export interface Journal {
  version: 1;
  applyId: string;
  kind: "apply" | "undo";
  /** For an undo: the apply it reverses. */
  undoOf?: string;
  startedAt: string;
  items: JournalItem[];
  steps: Step[];
}

/** `.engram/lifecycle/undo/<applyId>.json`: what reverses one committed apply. */
export interface UndoRecord {
  version: 1;
  applyId: string;
  /** Order of commits (the highest is undone first). */
  seq: number;
  committedAt: string;
  items: JournalItem[];
  /** The inverse steps, in the order they run. */
  steps: Step[];
}

/** How a journal ended. */
export interface JournalOutcome {
  applyId: string;
  kind: "apply" | "undo";
  /** `committed`: every step happened; `rolled-back`: none did (the workspace is as before). */
  outcome: "committed" | "rolled-back";
  steps: number;
  /** Workspace paths changed (and re-indexed). */
  paths: string[];
  /** Set when the index could not follow (files are fine; the next sync catches up). */
  indexWarning?: string;
}

/** Lock name serialising apply, undo and recovery across processes. */
export const LIFECYCLE_LOCK = "lifecycle";

/** A new apply id: sortable time, then randomness. */
export function newApplyId(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** Run `fn` holding the workspace's lifecycle lock. */
export function withLifecycleLock<T>(host: LifecycleHost, fn: () => Promise<T>): Promise<T> {
  return withWorkspaceLock(host.workspace, LIFECYCLE_LOCK, fn, { timeoutMs: 30_000 });
}

/**
 * Write `journal` (its blobs must be stored already), then carry it out: every step, or — when the
 * workspace changed underneath — none. Call with the lifecycle lock held.
 */
export async function runJournal(
  host: LifecycleHost,
  journal: Journal,
  hook?: StepHook,
): Promise<JournalOutcome> {
  const ws = host.workspace;
  await preflight(ws, journal.steps);
  await writeStateJson(statePath(ws, STATE_FILES.journal), journal);
  await audit(ws, [entry(host, journal, "started", { steps: journal.steps.length })]);
  return finish(host, journal, hook);
}

/**
 * Finish (or roll back) a journal left by an interrupted apply or undo. Returns null when there
 * is none. Call with the lifecycle lock held.
 */
export async function recoverJournal(host: LifecycleHost): Promise<JournalOutcome | null> {
  const journal = await readStateJson<Journal>(statePath(host.workspace, STATE_FILES.journal));
  if (!journal) return null;
  await audit(host.workspace, [entry(host, journal, "recovering")]);
  return finish(host, journal);
}

async function finish(
  host: LifecycleHost,
  journal: Journal,
  hook?: StepHook,
): Promise<JournalOutcome> {
  const ws = host.workspace;
  await sweepTemps(ws, journal.steps);
  // Steps before `progress` are known done; the one at `progress` may or may not have happened.
  const progress = await readProgress(ws, journal.applyId);
  let failed: { index: number; error: unknown } | null = null;
  for (let i = progress; i < journal.steps.length; i++) {
    const step = journal.steps[i] as Step;
    const state = await stateOf(ws, step);
    if (state === "conflict") {
      failed = {
        index: i,
        error: new Error(`${describeStep(step)}: found in an unexpected state`),
      };
      break;
    }
    if (state !== "after") {
      try {
        await runStep(ws, step, state, i, guard(hook));
      } catch (error) {
        // A hook that throws stands for a crash: stop here, leave the journal for recovery.
        if (error instanceof Interrupted) throw error.reason;
        failed = { index: i, error };
        break;
      }
    } else {
      // Done before a crash, perhaps but for the file's time (the write and the time are two calls).
      await settleStep(ws, step);
    }
    await writeStateJson(statePath(ws, PROGRESS_FILE), { applyId: journal.applyId, done: i + 1 });
    await audit(ws, [entry(host, journal, "step", { step: i + 1, ...stepFields(step) })]);
  }
  if (failed) {
    await rollback(host, journal, failed.index);
    await audit(ws, [
      entry(host, journal, "rolled-back", {
        step: failed.index + 1,
        error: (failed.error as Error).message,
      }),
    ]);
    await clearJournal(ws);
    return done(host, journal, "rolled-back");
  }
  await commit(host, journal);
  return done(host, journal, "committed");
}

/** Progress of the live journal: `.engram/lifecycle/progress.json`. */
const PROGRESS_FILE = "progress.json";

async function readProgress(ws: string, applyId: string): Promise<number> {
  const p = await readStateJson<{ applyId: string; done: number }>(statePath(ws, PROGRESS_FILE));
  return p && p.applyId === applyId && Number.isInteger(p.done) ? p.done : 0;
}

async function clearJournal(ws: string): Promise<void> {
  await removeState(statePath(ws, STATE_FILES.journal));
  await removeState(statePath(ws, PROGRESS_FILE));
}

/**
 * Refuse a journal whose first touch of each path does not find what the plan saw (the workspace
 * changed since it was planned). Later touches of a path depend on earlier steps and are checked
 * as they run.
 */
async function preflight(ws: string, steps: readonly Step[]): Promise<void> {
  const seen = new Set<string>();
  for (const [i, step] of steps.entries()) {
    const fresh = touched(step).filter((p) => !seen.has(p));
    for (const p of touched(step)) seen.add(p);
    if (step.kind === "rmdir" || fresh.length < touched(step).length) continue;
    const state = await stateOf(ws, step);
    if (state !== "before") {
      throw new EngramError(
        "LIFECYCLE_CONFLICT",
        `the workspace changed since this was planned: step ${i + 1} (${describeStep(step)}) is ${state}`,
        { hint: "run `engram lifecycle plan` again and apply the new plan" },
      );
    }
  }
}

/** Wraps what a step hook throws, so it is told apart from a failing step. */
class Interrupted extends Error {
  constructor(readonly reason: unknown) {
    super("interrupted by a step hook");
  }
}

function guard(hook: StepHook | undefined): StepHook | undefined {
  if (!hook) return undefined;
  return (event) => {
    try {
      hook(event);
    } catch (error) {
      throw new Interrupted(error);
    }
  };
}

/** Undo the steps before `failedAt` (newest first) and whatever part of `failedAt` happened. */
async function rollback(host: LifecycleHost, journal: Journal, failedAt: number): Promise<void> {
  const ws = host.workspace;
  const stuck = (step: Step) =>
    new EngramError(
      "STORE_FAILED",
      `lifecycle ${journal.kind} ${journal.applyId} cannot be finished or rolled back: ${describeStep(step)} was changed by hand`,
      {
        hint: "compare the files with .engram/lifecycle/journal.json, fix them, then delete the journal",
      },
    );
  const current = journal.steps[failedAt];
  if (current) {
    const state = await stateOf(ws, current);
    if (state === "partial") await revertPartial(ws, current);
    else if (state === "after") await runStep(ws, inverse(current), "before", failedAt);
  }
  for (let i = failedAt - 1; i >= 0; i--) {
    const back = inverse(journal.steps[i] as Step);
    const state = await stateOf(ws, back);
    if (state === "before") await runStep(ws, back, "before", i);
    else if (state !== "after") throw stuck(journal.steps[i] as Step);
  }
}

async function commit(host: LifecycleHost, journal: Journal): Promise<void> {
  const ws = host.workspace;
  const undoDir = statePath(ws, STATE_FILES.undoDir);
  // Read once: the new record's number, and (with this commit's change) the blobs to keep.
  let records = await undoRecords(ws);
  if (journal.kind === "apply") {
    const record: UndoRecord = {
      version: 1,
      applyId: journal.applyId,
      seq: Math.max(0, ...records.map((r) => r.seq)) + 1,
      committedAt: hostNow(host).toISOString(),
      items: journal.items,
      steps: journal.steps.map(inverse).reverse(),
    };
    await writeStateJson(path.join(undoDir, `${journal.applyId}.json`), record);
    records = [record, ...records];
    await rememberProjectCandidates(ws, journal.applyId, journal.items);
  } else if (journal.undoOf) {
    const undone = journal.undoOf;
    await forgetProjectCandidates(ws, undone);
    await removeState(path.join(undoDir, `${undone}.json`));
    records = records.filter((r) => r.applyId !== undone);
  }
  await audit(ws, [entry(host, journal, "committed", { steps: journal.steps.length })]);
  await clearJournal(ws);
  await pruneBlobs(ws, records);
}

async function done(
  host: LifecycleHost,
  journal: Journal,
  outcome: JournalOutcome["outcome"],
): Promise<JournalOutcome> {
  const paths = [
    ...new Set(
      journal.steps.filter((s) => s.kind !== "mkdir" && s.kind !== "rmdir").flatMap(touched),
    ),
  ];
  const result: JournalOutcome = {
    applyId: journal.applyId,
    kind: journal.kind,
    outcome,
    steps: journal.steps.length,
    paths,
  };
  const warning = await syncIndex(host, paths);
  if (warning) result.indexWarning = warning;
  return result;
}

/**
 * Every undo record, newest (highest `seq`) first. One record is kept for every apply ever made
 * (undo goes back through all of them), so this grows with the workspace's history: the files are
 * read synchronously, a few ms per hundred records instead of ~30 ms (see {@link Pacer}).
 */
export async function undoRecords(ws: string): Promise<UndoRecord[]> {
  const dir = statePath(ws, STATE_FILES.undoDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const records: UndoRecord[] = [];
  const pace = new Pacer();
  for (const name of names.filter((n) => n.endsWith(".json"))) {
    await pace.tick(1);
    const record = readStateJsonSync<UndoRecord>(path.join(dir, name));
    if (record) records.push(record);
  }
  return records.sort((a, b) => b.seq - a.seq);
}

/** Keep only the blobs that `records` (every undo record left) still need. */
async function pruneBlobs(ws: string, records: readonly UndoRecord[]): Promise<void> {
  const keep = new Set<string>();
  for (const record of records) {
    for (const step of record.steps) {
      if (step.kind === "put") {
        if (step.before) keep.add(step.before);
        if (step.after) keep.add(step.after);
      }
    }
  }
  await blobs.prune(ws, keep);
}

/** Remove temp copies a killed process left in the folders this journal writes to. */
async function sweepTemps(ws: string, steps: readonly Step[]): Promise<void> {
  const dirs = new Set<string>();
  for (const step of steps) {
    if (step.kind === "move") dirs.add(path.dirname(workspacePath(ws, step.to)));
    if (step.kind === "put") dirs.add(path.dirname(workspacePath(ws, step.path)));
  }
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (TEMP_FILE_RE.test(name)) await rm(path.join(dir, name), { force: true });
    }
  }
}

/** One line saying what a step does, e.g. `move memory/a.md → memory/archive/a.md`. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case "move":
      return `move ${step.from} → ${step.to}`;
    case "put":
      return step.before === null
        ? `create ${step.path}`
        : step.after === null
          ? `remove ${step.path}`
          : `rewrite ${step.path}`;
    case "mkdir":
      return `create folder ${step.path}`;
    case "rmdir":
      return `remove empty folder ${step.path}`;
  }
}

function stepFields(step: Step): Record<string, unknown> {
  return step.kind === "move"
    ? { kind: "move", from: step.from, to: step.to, hash: step.hash }
    : step.kind === "put"
      ? { kind: "put", path: step.path, before: step.before, after: step.after }
      : { kind: step.kind, path: step.path };
}

function entry(
  host: LifecycleHost,
  journal: Journal,
  event: string,
  extra: Record<string, unknown> = {},
): AuditEntry {
  return {
    at: hostNow(host).toISOString(),
    applyId: journal.applyId,
    event: journal.kind === "undo" ? `undo-${event}` : event,
    ...extra,
  };
}
