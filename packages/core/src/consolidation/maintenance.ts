import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { applyPlan } from "../lifecycle/apply.js";
import { hostNow, type LifecycleHost } from "../lifecycle/host.js";
import type { LanguageModel } from "../model/language-model.js";
import { transcriptFolder } from "../sessions/scan.js";
import { writeFileAtomic } from "../workspace/atomic.js";
import { tryWorkspaceLock, withWorkspaceLock } from "../workspace/lock.js";
import { indexDir } from "../workspace/paths.js";
import { THREE_TIER_PATHS } from "../workspace/presets.js";
import { applyConsolidation } from "./apply.js";
import { hostModel, passModel } from "./model-source.js";
import { lastSlot, nextSlot, parseSchedule } from "./schedule.js";
import { readState } from "./state.js";

/** Why a maintenance run started. */
export type MaintenanceTrigger = "schedule" | "session-end" | "manual";

/** One maintenance run, as `status` shows it. */
export interface MaintenanceRun {
  at: string;
  trigger: MaintenanceTrigger;
  /** `ok`: it ran; `failed`: a step threw (the rest still ran); `skipped`: not due; `busy`: another process was running it. */
  outcome: "ok" | "failed" | "skipped" | "busy";
  lifecycle?: { applyId: string; moves: number; outcome: string };
  consolidation?: {
    applyId: string;
    mode: "model" | "deterministic";
    operations: number;
    refused: number;
    outcome: string;
  };
  errors?: string[];
  /** Why it was skipped. */
  reason?: string;
}

/** Whether maintenance is due, and what `status` shows about it. */
export interface MaintenanceStatus {
  schedule: string;
  gates: { minHours?: number; minSessions?: number } | null;
  /** The last consolidation pass (or maintenance run), ISO. */
  lastPassAt: string | null;
  passes: number;
  /** Sessions ended since the last pass (session ends noted, session files and transcripts changed). */
  sessionsSinceLastPass: number;
  due: boolean;
  /** Whether the gates pass (true without gates): what a session-end run checks. */
  gatesPass: boolean;
  /** Why it is (not) due, in words. */
  why: string;
  /** The next scheduled time, ISO (null without a schedule). */
  nextAt: string | null;
  lastRun: MaintenanceRun | null;
}

interface MaintenanceFile {
  version: 1;
  lastRun: MaintenanceRun | null;
  lastOkAt: string | null;
  sessionEnds: Array<{ id: string; at: string }>;
}

const MAINTENANCE_LOCK = "maintenance";
/** Session ends kept (older ones can no longer count for a gate). */
const MAX_SESSION_ENDS = 1_000;

function stateFile(ws: string): string {
  return path.join(indexDir(ws), "consolidation", "maintenance.json");
}

async function readFileState(ws: string): Promise<MaintenanceFile> {
  const text = await readFile(stateFile(ws), "utf8").catch(() => null);
  if (text) {
    try {
      const parsed = JSON.parse(text) as MaintenanceFile;
      if (parsed.version === 1) return { ...parsed, sessionEnds: parsed.sessionEnds ?? [] };
    } catch {
      // a damaged status file is rebuilt: it only holds status and session ends
    }
  }
  return { version: 1, lastRun: null, lastOkAt: null, sessionEnds: [] };
}

async function updateFileState(ws: string, change: (s: MaintenanceFile) => void): Promise<void> {
  await withWorkspaceLock(ws, "maintenance-state", async () => {
    const s = await readFileState(ws);
    change(s);
    await writeFileAtomic(stateFile(ws), `${JSON.stringify(s, null, 2)}\n`);
  });
}

/**
 * Note that an agent session ended (for the `minSessions` gate). `FlushPolicy.endSession` calls
 * it; call it yourself when your agent has no flush policy.
 */
export async function noteSessionEnd(
  workspace: string,
  sessionId: string,
  at: Date,
): Promise<void> {
  const when = at.toISOString();
  await updateFileState(workspace, (s) => {
    s.sessionEnds.push({ id: sessionId, at: when });
    if (s.sessionEnds.length > MAX_SESSION_ENDS)
      s.sessionEnds.splice(0, s.sessionEnds.length - MAX_SESSION_ENDS);
  });
}

/** Whether maintenance is due now (see `maintenance` in the config), and why. */
export async function maintenanceStatus(
  host: LifecycleHost,
  options: { now?: Date } = {},
): Promise<MaintenanceStatus> {
  const cfg = host.config.maintenance;
  const now = hostNow(host, options);
  const [file, state] = await Promise.all([
    readFileState(host.workspace),
    readState(host.workspace),
  ]);
  const lastPassAt =
    [state.lastPassAt, file.lastOkAt]
      .filter((x): x is string => Boolean(x))
      .sort()
      .at(-1) ?? null;
  const lastPass = lastPassAt ? new Date(lastPassAt) : null;
  const sessions = await sessionsSince(host, file, lastPass);
  const schedule = parseSchedule(cfg.schedule) ?? { kind: "off" as const };
  const gates = cfg.gates ?? null;
  const status: MaintenanceStatus = {
    schedule: cfg.schedule,
    gates,
    lastPassAt,
    passes: state.passes,
    sessionsSinceLastPass: sessions,
    due: false,
    gatesPass: true,
    why: "",
    nextAt: nextSlot(schedule, now, lastPass)?.toISOString() ?? null,
    lastRun: file.lastRun,
  };
  let gateWhy = "";
  if (gates?.minHours !== undefined && lastPass) {
    const hours = (now.getTime() - lastPass.getTime()) / 3_600_000;
    if (hours < gates.minHours) {
      gateWhy = `${hours.toFixed(1)} h since the last pass; the gate wants ${gates.minHours} h`;
    }
  }
  if (!gateWhy && gates?.minSessions !== undefined && sessions < gates.minSessions) {
    gateWhy = `${sessions} sessions since the last pass; the gate wants ${gates.minSessions}`;
  }
  status.gatesPass = gateWhy === "";
  if (schedule.kind === "off" && !gates) {
    status.why = 'maintenance.schedule is "off" and no gates are set';
    return status;
  }
  if (schedule.kind !== "off") {
    const slot = lastSlot(schedule, now, lastPass) as Date;
    const ran = lastPass !== null && lastPass.getTime() >= slot.getTime();
    if (slot.getTime() > now.getTime() || ran) {
      status.why = `not time yet (${cfg.schedule}; last pass ${lastPassAt ?? "never"})`;
      return status;
    }
  }
  if (gateWhy) {
    status.why = gateWhy;
    return status;
  }
  status.due = true;
  status.why = schedule.kind !== "off" ? `scheduled (${cfg.schedule})` : "the gates pass";
  return status;
}

/** Distinct sessions ended (noted) or whose files changed since `since`. */
async function sessionsSince(
  host: LifecycleHost,
  file: MaintenanceFile,
  since: Date | null,
): Promise<number> {
  const after = since?.getTime() ?? Number.NEGATIVE_INFINITY;
  const ids = new Set(file.sessionEnds.filter((e) => Date.parse(e.at) > after).map((e) => e.id));
  const folders = [
    path.join(host.workspace, ...THREE_TIER_PATHS.sessionsDir.split("/")),
    transcriptFolder(host.workspace, host.config.sessions),
  ].filter((f): f is string => Boolean(f));
  for (const folder of folders) {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (!/\.(md|jsonl)$/.test(name)) continue;
      const st = await lstat(path.join(folder, name)).catch(() => null);
      if (st?.isFile() && st.mtimeMs > after) ids.add(name.replace(/\.(md|jsonl)$/, ""));
    }
  }
  return ids.size;
}

/** Options of {@link runMaintenance}. */
export interface MaintenanceOptions {
  trigger?: MaintenanceTrigger;
  /** The model for consolidation (default: the host's `languageModel`; null: the deterministic mode). */
  model?: LanguageModel | null;
  now?: Date;
}

/**
 * One maintenance run: the lifecycle rules, then a consolidation pass (operations the recall guard
 * refuses are left out and reported). At most one runs at a time on the machine (a workspace
 * lock): a second caller gets `busy`. A scheduled or session-end run first checks that it is due
 * (another process may just have run it); `manual` runs regardless. The outcome is kept for
 * `status`.
 */
export async function runMaintenance(
  host: LifecycleHost,
  options: MaintenanceOptions = {},
): Promise<MaintenanceRun> {
  const trigger = options.trigger ?? "manual";
  const release = await tryWorkspaceLock(host.workspace, MAINTENANCE_LOCK);
  const at = hostNow(host, options).toISOString();
  if (!release) return { at, trigger, outcome: "busy" };
  try {
    if (trigger !== "manual") {
      // A scheduled run needs its slot and the gates; a session-end run the gates only.
      const status = await maintenanceStatus(host, options);
      const go = trigger === "schedule" ? status.due : status.gatesPass;
      if (!go) return { at, trigger, outcome: "skipped", reason: status.why };
    }
    const cfg = host.config.maintenance;
    const run: MaintenanceRun = { at, trigger, outcome: "ok" };
    const errors: string[] = [];
    const now = options.now ? { now: options.now } : {};
    if (cfg.lifecycle) {
      try {
        const r = await applyPlan(host, undefined, now);
        run.lifecycle = { applyId: r.applyId, moves: r.items.length, outcome: r.outcome };
      } catch (error) {
        errors.push(`lifecycle: ${(error as Error).message}`);
      }
    }
    if (cfg.consolidate) {
      try {
        const r = await applyConsolidation(host, {
          ...now,
          model: pickModel(host, options.model),
          skipUnsafe: true,
        });
        run.consolidation = {
          applyId: r.applyId,
          mode: r.plan.mode,
          operations: r.plan.operations.length,
          refused: r.plan.refused.length,
          outcome: r.outcome,
        };
      } catch (error) {
        errors.push(`consolidation: ${(error as Error).message}`);
      }
    }
    if (errors.length) {
      run.outcome = "failed";
      run.errors = errors;
    }
    await updateFileState(host.workspace, (s) => {
      s.lastRun = run;
      if (run.outcome === "ok") s.lastOkAt = at;
    });
    return run;
  } finally {
    await release();
  }
}

/** A running maintenance schedule (see {@link startMaintenance}). */
export interface MaintenanceScheduler {
  /** Check now, and run when due. Resolves to the run, or null when none was due or one is running here. */
  tick(): Promise<MaintenanceRun | null>;
  /** Stop checking; waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Check every `maintenance.checkEveryMs` whether maintenance is due and run it (the scheduler
 * `engram watch` and `engram mcp` start; one process runs it at a time, the others find it done).
 * Does nothing when neither a schedule nor gates are configured. The timer does not keep the
 * process alive.
 */
export function startMaintenance(
  host: LifecycleHost,
  options: {
    model?: () => LanguageModel | null;
    onRun?: (run: MaintenanceRun) => void;
    onError?: (error: unknown) => void;
    checkEveryMs?: number;
  } = {},
): MaintenanceScheduler {
  const cfg = host.config.maintenance;
  let running: Promise<MaintenanceRun | null> | null = null;
  let stopped = false;
  const tick = (): Promise<MaintenanceRun | null> => {
    if (stopped || running) return Promise.resolve(null);
    running = (async () => {
      try {
        const status = await maintenanceStatus(host);
        if (!status.due) return null;
        const run = await runMaintenance(host, {
          trigger: "schedule",
          ...(options.model ? { model: options.model() } : {}),
        });
        if (run.outcome !== "skipped" && run.outcome !== "busy") options.onRun?.(run);
        return run;
      } catch (error) {
        options.onError?.(error);
        return null;
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const enabled = (parseSchedule(cfg.schedule)?.kind ?? "off") !== "off" || cfg.gates !== undefined;
  const timer = enabled
    ? setInterval(() => void tick(), options.checkEveryMs ?? cfg.checkEveryMs)
    : null;
  timer?.unref();
  return {
    tick,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

function pickModel(
  host: LifecycleHost,
  given: LanguageModel | null | undefined,
): LanguageModel | null {
  const model = given === undefined ? hostModel(host) : given;
  return model ? passModel(model, host.config.consolidation.maxTokens) : null;
}
