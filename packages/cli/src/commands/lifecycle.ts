import {
  type ApplyResult,
  applyPlan,
  EngramError,
  type JournalOutcome,
  type LifecyclePlan,
  planLifecycle,
  promotionCandidates,
  undoLastApply,
} from "@engram/core";
import type { Command } from "commander";
import { positiveInt, withMemory } from "../context.js";
import { type Io, json, line, plural, warn } from "../output.js";

/** `engram lifecycle plan|apply|undo|candidates`: move memory between tiers by the config's rules. */
export function registerLifecycle(program: Command, io: Io): void {
  const lifecycle = program
    .command("lifecycle")
    .description(
      "archive and promote memory by the lifecycle rules (plan, apply, undo, candidates)",
    );

  lifecycle
    .command("plan")
    .description("dry run: every move the rules would make now, with its rule and reason")
    .option("--now <date>", "evaluate the rules as of this date/time (ISO 8601)")
    .action(async (flags: { now?: string }, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const plan = await planLifecycle(memory, nowOption(flags.now));
        if (g.json) return json(io, plan);
        printPlan(io, plan);
      });
    });

  lifecycle
    .command("apply")
    .description(
      "carry out the plan atomically (journaled; an interrupted apply finishes on the next run)",
    )
    .option("--now <date>", "evaluate the rules as of this date/time (ISO 8601)")
    .action(async (flags: { now?: string }, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const result = await applyPlan(memory, undefined, nowOption(flags.now));
        if (g.json) return json(io, result);
        printResult(io, result, "Applied");
      });
    });

  lifecycle
    .command("undo")
    .description("reverse the last apply, restoring the exact previous files")
    .action(async (_flags: unknown, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const result = await undoLastApply(memory);
        if (g.json) return json(io, result);
        printResult(io, result, "Undid");
      });
    });

  lifecycle
    .command("candidates")
    .description("short-term memory recalled often (and finished projects' decisions), to promote")
    .option("--limit <n>", "most candidates to show (default 10)")
    .option("--now <date>", "score recency as of this date/time (ISO 8601)")
    .action(async (flags: { limit?: string; now?: string }, cmd: Command) => {
      const limit = positiveInt("--limit", flags.limit);
      await withMemory(cmd, async (memory, g) => {
        const result = await promotionCandidates(memory, {
          ...nowOption(flags.now),
          ...(limit ? { limit } : {}),
        });
        if (g.json) return json(io, result);
        if (result.candidates.length === 0 && result.projects.length === 0) {
          return line(
            io,
            "No promotion candidates yet (they come from repeated searches and reads).",
          );
        }
        for (const c of result.candidates) {
          line(
            io,
            `${c.score.toFixed(2)}  ${c.path}:${c.startLine}-${c.endLine}  (recalled ${c.frequency}×)`,
          );
          line(io, `      ${c.text.split("\n")[0]?.slice(0, 100)}`);
        }
        for (const p of result.projects) {
          line(io, `project ${p.project} · ${p.heading}  ${p.path}:${p.startLine}-${p.endLine}`);
          line(io, `      ${p.text.split("\n")[0]?.slice(0, 100)}`);
        }
        line(io, 'Promote one with: engram promote "<text>"');
      });
    });
  for (const sub of lifecycle.commands) sub.exitOverride();
}

/** `--now` as the `now` option (or none). */
export function nowOption(value: string | undefined): { now?: Date } {
  if (value === undefined) return {};
  const now = new Date(value);
  if (Number.isNaN(now.getTime())) {
    throw new EngramError("INVALID_ARGUMENT", `--now must be a date, got "${value}"`, {
      hint: "for example --now 2026-01-12 or --now 2026-01-12T09:30:00",
    });
  }
  return { now };
}

function printPlan(io: Io, plan: LifecyclePlan): void {
  if (plan.recovered) printRecovered(io, plan.recovered);
  if (plan.items.length === 0) line(io, "Nothing to do: no rule matches now.");
  for (const item of plan.items) {
    const note =
      item.collision === "appended"
        ? " (appended to the existing archive)"
        : item.collision === "suffixed"
          ? " (name taken: suffixed)"
          : "";
    line(io, `${item.action} ${item.from} → ${item.to}${note}`);
    line(io, `    rule ${item.rule}: ${item.reason}`);
    for (const c of item.collected ?? [])
      line(io, `    candidate (${c.heading}): ${c.text.split("\n")[0]}`);
  }
  for (const s of plan.skipped) warn(io, `skipped ${s.path} (rule ${s.rule}): ${s.reason}`);
  if (plan.items.length)
    line(
      io,
      `${plan.items.length} moves, ${plan.steps.length} steps. Run "engram lifecycle apply" to carry them out.`,
    );
}

/** An interrupted apply or undo was finished (or rolled back) before this command's own work. */
function printRecovered(io: Io, recovered: JournalOutcome): void {
  const what =
    recovered.outcome === "committed"
      ? `finished it (${plural(recovered.steps, "step")}, id ${recovered.applyId})`
      : `rolled it back (the workspace had changed; id ${recovered.applyId})`;
  line(io, `An interrupted lifecycle ${recovered.kind} was found: ${what}.`);
}

function printResult(io: Io, result: ApplyResult, verb: string): void {
  if (result.recovered) printRecovered(io, result.recovered);
  if (result.steps === 0) {
    line(io, "Nothing to do: no rule matches now.");
    return;
  }
  if (result.outcome === "rolled-back") {
    line(io, `Rolled back: the workspace changed during the ${result.kind}; nothing was moved.`);
    return;
  }
  for (const item of result.items) {
    line(io, result.kind === "undo" ? `${item.to} → ${item.from}` : `${item.from} → ${item.to}`);
  }
  line(io, `${verb} ${result.items.length} moves (${result.steps} steps, id ${result.applyId}).`);
  if (result.indexWarning) warn(io, result.indexWarning);
}
