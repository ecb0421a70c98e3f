import { readFile, stat } from "node:fs/promises";
import { EngramError } from "../errors.js";
import { sha256Hex } from "../text/hash.js";
import { workspacePath } from "./files.js";
import { hostNow, type LifecycleHost, type LifecyclePlanOptions } from "./host.js";
import {
  type Journal,
  type JournalOutcome,
  newApplyId,
  recoverJournal,
  runJournal,
  undoRecords,
  withLifecycleLock,
} from "./journal.js";
import { computePlan, type LifecyclePlan, type PlanItem } from "./plan.js";
import { blobs } from "./state.js";
import { nsToMs, type StepHook } from "./steps.js";

/** Options of {@link applyPlan}. */
export interface ApplyOptions extends LifecyclePlanOptions {
  /** Called as steps progress; throwing from it stops the apply as a crash would (tests). */
  hook?: StepHook;
  /** The id of the apply (default: a new one); consolidation names its passes beforehand. */
  applyId?: string;
}

/** What {@link undoLastApply} may undo: only an apply one of whose items has one of `rules`. */
export interface UndoFilter {
  rules: readonly string[];
  /** Names what is undone in messages, e.g. `consolidation`. */
  what: string;
}

/** What an apply (or undo) did. */
export interface ApplyResult extends JournalOutcome {
  items: PlanItem[];
  /** Set when an interrupted apply was finished or rolled back first. */
  recovered?: JournalOutcome;
}

/**
 * Finish (or roll back) an apply or undo that was interrupted (a crash, a killed process). Runs at
 * the start of {@link planLifecycle}, {@link applyPlan} and {@link undoLastApply}, too. Returns null
 * when nothing was interrupted.
 */
export function recoverLifecycle(host: LifecycleHost): Promise<JournalOutcome | null> {
  return withLifecycleLock(host, () => recoverJournal(host));
}

/**
 * The dry run: every move the rules would make now, each with its rule and reason. Nothing is
 * changed, except that an interrupted apply or undo is finished (or rolled back) first: the plan
 * then says so in `recovered`.
 */
export async function planLifecycle(
  host: LifecycleHost,
  options: LifecyclePlanOptions = {},
): Promise<LifecyclePlan> {
  const recovered = await recoverLifecycle(host);
  const plan = await computePlan(host, options);
  return recovered ? { ...plan, recovered } : plan;
}

/**
 * Carry out `plan` (default: a fresh plan) atomically: a journal in `.engram/lifecycle/` is written
 * before any file is touched, every move copies, fsyncs and verifies before removing its source,
 * and an interrupted apply is finished or rolled back by the next run. Every change goes to
 * `.engram/lifecycle/audit.jsonl`; {@link undoLastApply} reverses it. Holds the workspace's
 * lifecycle lock throughout; the index follows with a targeted sync of the moved paths.
 *
 * @throws EngramError `INVALID_ARGUMENT` when the workspace changed since `plan` was made.
 */
export async function applyPlan(
  host: LifecycleHost,
  plan?: LifecyclePlan,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  return withLifecycleLock(host, async () => {
    const recovered = (await recoverJournal(host)) ?? undefined;
    const p = plan ?? (await computePlan(host, options));
    const result = await runPlan(host, p, "apply", options);
    return recovered ? { ...result, recovered } : result;
  });
}

/**
 * Reverse the last committed apply, restoring the exact previous files (each checked by hash). Run
 * again to undo the apply before it.
 *
 * @throws EngramError `INVALID_ARGUMENT` when there is nothing to undo or the files were changed
 * since (nothing is touched then).
 */
export async function undoLastApply(
  host: LifecycleHost,
  options: ApplyOptions = {},
  only?: UndoFilter,
): Promise<ApplyResult> {
  return withLifecycleLock(host, async () => {
    const recovered = (await recoverJournal(host)) ?? undefined;
    const [last] = await undoRecords(host.workspace);
    if (!last) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        only ? `there is no ${only.what} to undo` : "there is no lifecycle apply to undo",
        {
          hint: only
            ? `undo reverses the most recent ${only.what} the journal records; none is recorded, or each was undone already`
            : "`engram lifecycle apply` records what it does; undo reverses the most recent one",
        },
      );
    }
    if (only && !last.items.some((i) => only.rules.includes(i.rule))) {
      const rule = last.items[0]?.rule ?? "?";
      throw new EngramError(
        "INVALID_ARGUMENT",
        `the most recent change (${last.applyId}, ${rule}) is not a ${only.what}; changes are undone newest first`,
        { hint: "undo the newer change first (`engram lifecycle undo` undoes whatever came last)" },
      );
    }
    const journal: Journal = {
      version: 1,
      applyId: newApplyId(hostNow(host, options)),
      kind: "undo",
      undoOf: last.applyId,
      startedAt: hostNow(host, options).toISOString(),
      items: last.items,
      steps: last.steps,
    };
    const outcome = await runJournal(host, journal, options.hook);
    const items = last.items.map((i) => ({ ...i, to: i.to ?? "" })) as PlanItem[];
    return { ...outcome, items, ...(recovered ? { recovered } : {}) };
  });
}

/** Journal and run a plan's steps (the lifecycle lock must be held). */
export async function runPlan(
  host: LifecycleHost,
  plan: LifecyclePlan,
  kind: "apply",
  options: ApplyOptions,
): Promise<ApplyResult> {
  const ws = host.workspace;
  const now = hostNow(host, options);
  const applyId = options.applyId ?? newApplyId(now);
  if (plan.steps.length === 0) {
    return { applyId, kind, outcome: "committed", steps: 0, paths: [], items: [] };
  }
  // Everything the steps write, and everything a put replaces (for rollback and undo), is stored
  // before the journal exists.
  for (const [hash, text] of Object.entries(plan.contents)) {
    if ((await blobs.put(ws, text)) !== hash) {
      throw new EngramError("LIFECYCLE_CONFLICT", "the plan's contents do not match their hashes", {
        hint: "plans are made by planLifecycle; do not edit them",
      });
    }
  }
  const moved = new Map(plan.steps.flatMap((s) => (s.kind === "move" ? [[s.hash, s.from]] : [])));
  const steps = [...plan.steps];
  for (const [i, step] of steps.entries()) {
    if (step.kind !== "put" || step.before === null) continue;
    // The replaced content is on disk now: at the path, or (when an earlier step moves it there)
    // at that move's source (moves keep modification times).
    let kept = false;
    for (const where of [step.path, moved.get(step.before)]) {
      const abs = where ? workspacePath(ws, where) : null;
      const current = abs ? await readFile(abs).catch(() => null) : null;
      if (abs && current && sha256Hex(current) === step.before) {
        await blobs.put(ws, current);
        // Its time goes into the journal, so undo and rollback give the old content its old time.
        const { mtimeNs } = await stat(abs, { bigint: true });
        steps[i] = { ...step, beforeMtimeMs: nsToMs(mtimeNs) };
        kept = true;
        break;
      }
    }
    if (!kept) {
      throw new EngramError("LIFECYCLE_CONFLICT", `${step.path} changed since the plan was made`, {
        hint: "run `engram lifecycle plan` again and apply the new plan",
      });
    }
  }
  const journal: Journal = {
    version: 1,
    applyId,
    kind,
    startedAt: now.toISOString(),
    items: plan.items.map(({ rule, action, reason, from, to, collected }) => ({
      rule,
      action,
      reason,
      from,
      to,
      ...(collected?.length ? { collected } : {}),
    })),
    steps,
  };
  const outcome = await runJournal(host, journal, options.hook);
  return { ...outcome, items: plan.items };
}
