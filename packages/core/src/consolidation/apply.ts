import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import {
  type ApplyOptions,
  type ApplyResult,
  recoverLifecycle,
  runPlan,
  undoLastApply,
} from "../lifecycle/apply.js";
import { hashOrNull, workspacePath } from "../lifecycle/files.js";
import { hostNow, type LifecycleHost } from "../lifecycle/host.js";
import { recoverJournal, withLifecycleLock } from "../lifecycle/journal.js";
import { writeFileAtomic } from "../workspace/atomic.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { indexDir } from "../workspace/paths.js";
import { formatRef } from "./citations.js";
import { type ConsolidateOptions, planConsolidation } from "./plan.js";
import type { ConsolidationPlan } from "./types.js";

/** Lock name: one consolidation (plan + apply) at a time per workspace, across processes. */
export const CONSOLIDATION_LOCK = "consolidation";
/** A saved plan older than this is planned again instead of applied. */
const SAVED_PLAN_MAX_AGE_MS = 24 * 3_600_000;

/** Options of {@link applyConsolidation}. */
export interface ApplyConsolidationOptions extends ConsolidateOptions, Pick<ApplyOptions, "hook"> {
  /** The plan to apply (default: the one `planConsolidation` saved, if it still holds; else a new one). */
  plan?: ConsolidationPlan;
  /** Wait this long for another process's consolidation (default 30 s). */
  lockTimeoutMs?: number;
}

/** What an apply did. */
export interface ConsolidationResult extends Omit<ApplyResult, "items"> {
  plan: ConsolidationPlan;
  /** True when the plan saved by the last `plan` was applied (no new model call). */
  reused: boolean;
}

/** `.engram/consolidation/plan.json`: the last plan shown, applied as shown if nothing changed. */
function savedPlanPath(ws: string): string {
  return path.join(indexDir(ws), "consolidation", "plan.json");
}

/** Keep `plan` so that `apply` carries out exactly what was shown. */
export async function savePlan(host: LifecycleHost, plan: ConsolidationPlan): Promise<void> {
  const file = savedPlanPath(host.workspace);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(plan)}\n`);
}

/** The saved plan when every file it read is unchanged, it is recent and of the wanted mode. */
async function savedPlan(
  host: LifecycleHost,
  options: ConsolidateOptions,
): Promise<ConsolidationPlan | null> {
  const text = await readFile(savedPlanPath(host.workspace), "utf8").catch(() => null);
  if (text === null) return null;
  let plan: ConsolidationPlan;
  try {
    plan = JSON.parse(text) as ConsolidationPlan;
  } catch {
    return null;
  }
  const mode = options.model ? "model" : "deterministic";
  const age = hostNow(host, options).getTime() - Date.parse(plan.createdAt);
  if (plan.mode !== mode || !(age >= 0 && age < SAVED_PLAN_MAX_AGE_MS)) return null;
  if (plan.guard?.failed?.length && options.skipUnsafe) return null;
  for (const [file, hash] of Object.entries(plan.basis ?? {})) {
    if ((await hashOrNull(workspacePath(host.workspace, file))) !== hash) return null;
  }
  return plan;
}

async function dropSavedPlan(host: LifecycleHost): Promise<void> {
  await rm(savedPlanPath(host.workspace), { force: true });
}

/**
 * Carry out a consolidation pass through the lifecycle journal: the long-term files, the day's
 * archive (`memory/archive/consolidation/`), the report (`memory/dreams/`) and the pass state
 * change together or not at all; a crash midway is finished or rolled back by the next run, every
 * step is audited and {@link undoConsolidation} restores the previous tree (bytes and mtimes).
 * Daily logs are never written. One consolidation runs at a time per workspace.
 *
 * @throws EngramError `RECALL_GUARD` when the plan would make lines unfindable to queries that
 * found them (nothing is written; `skipUnsafe` leaves those operations out instead);
 * `LIFECYCLE_CONFLICT` when a file changed since the plan was made.
 */
export async function applyConsolidation(
  host: LifecycleHost,
  options: ApplyConsolidationOptions = {},
): Promise<ConsolidationResult> {
  return withWorkspaceLock(
    host.workspace,
    CONSOLIDATION_LOCK,
    async () => {
      // Finish an interrupted apply first: the saved plan is then judged against the real files.
      const recovered = (await recoverLifecycle(host)) ?? undefined;
      let reused = false;
      let plan = options.plan ?? null;
      if (!plan) {
        plan = await savedPlan(host, options);
        reused = plan !== null;
      }
      plan ??= await planConsolidation(host, options);
      if (plan.guard.failed.length) {
        const list = plan.guard.failed.map((f) => `"${f.query}" → ${formatRef(f.line)}`);
        throw new EngramError(
          "RECALL_GUARD",
          `the apply would make memory unfindable: ${list.slice(0, 5).join("; ")}${list.length > 5 ? ` (and ${list.length - 5} more)` : ""}`,
          {
            hint: "see `engram consolidate plan`; apply with --skip-unsafe to leave those operations out",
          },
        );
      }
      const chosen = plan;
      const outcome = await withLifecycleLock(host, async () => {
        await recoverJournal(host);
        return runPlan(host, chosen.lifecycle, "apply", {
          applyId: chosen.passId,
          ...(options.hook ? { hook: options.hook } : {}),
          ...(options.now ? { now: options.now } : {}),
        });
      });
      await dropSavedPlan(host);
      const { items: _items, ...rest } = outcome;
      return { ...rest, plan: chosen, reused, ...(recovered ? { recovered } : {}) };
    },
    { timeoutMs: options.lockTimeoutMs ?? 30_000 },
  );
}

/**
 * Undo the last consolidation pass, restoring every file it wrote to its exact previous bytes
 * and mtime (the pass state too, so the same notes count as new again).
 *
 * @throws EngramError `INVALID_ARGUMENT` when there is nothing to undo, or the most recent change
 * is not a consolidation (changes are undone newest first).
 */
export function undoConsolidation(
  host: LifecycleHost,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  return undoLastApply(host, options, { rules: ["consolidate"], what: "consolidation" });
}
