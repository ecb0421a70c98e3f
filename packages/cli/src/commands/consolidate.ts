import {
  type ApplyResult,
  type ConsolidationPlan,
  describeRefusal,
  formatRef,
  type Memory,
  undoConsolidation,
} from "@engram/core";
import { hostModel } from "@engram/core/internal";
import type { Command } from "commander";
import { positiveInt, withMemory } from "../context.js";
import { type Io, json, line, warn } from "../output.js";
import { nowOption } from "./lifecycle.js";

interface PassFlags {
  maxTokens?: string;
  model: boolean;
  skipUnsafe?: boolean;
  now?: string;
  diff: boolean;
}

/** `engram consolidate plan|apply|undo`: curate long-term memory from the notes since the last pass. */
export function registerConsolidate(program: Command, io: Io): void {
  const consolidate = program
    .command("consolidate")
    .description(
      "curate long-term memory from new notes: add facts, merge duplicates, archive what is contradicted (plan, apply, undo)",
    );
  const passOptions = (cmd: Command) =>
    cmd
      .option("--max-tokens <n>", "most tokens the pass may spend with the language model")
      .option(
        "--no-model",
        "the deterministic mode: merge duplicates, promote recalled and important notes",
      )
      .option(
        "--skip-unsafe",
        "leave out operations the recall guard refuses instead of refusing the apply",
      )
      .option("--now <date>", "run as of this date/time (ISO 8601)");

  passOptions(
    consolidate
      .command("plan")
      .description(
        "show every operation, its sources, what was refused and a diff per file; writes nothing",
      )
      .option("--no-diff", "leave the diffs out of the text output"),
  ).action(async (flags: PassFlags, cmd: Command) => {
    await withMemory(cmd, async (memory, g) => {
      const plan = await memory.consolidate({ ...passOptions2(memory, flags), mode: "plan" });
      if (g.json) return json(io, jsonPlan(plan));
      printPlan(io, plan, flags.diff);
    });
  });

  passOptions(
    consolidate
      .command("apply")
      .description(
        "carry out the plan (the one `plan` showed, if nothing changed since) through the journal",
      ),
  ).action(async (flags: PassFlags, cmd: Command) => {
    await withMemory(cmd, async (memory, g) => {
      const result = await memory.consolidate({ ...passOptions2(memory, flags), mode: "apply" });
      if (g.json) return json(io, { ...result, plan: jsonPlan(result.plan) });
      if (!result.reused) printPlan(io, result.plan, false);
      if (result.steps === 0) return line(io, "Nothing to do: no new notes, no duplicates.");
      line(
        io,
        `Applied pass ${result.applyId}: ${result.plan.operations.length} operations, ${result.plan.refused.length} refused; report in ${result.plan.report}. Undo with "engram consolidate undo".`,
      );
      if (result.indexWarning) warn(io, result.indexWarning);
    });
  });

  consolidate
    .command("undo")
    .description("undo the last consolidation pass, restoring every file it wrote exactly")
    .action(async (_flags: unknown, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const result = await undoConsolidation(memory);
        if (g.json) return json(io, result);
        printUndo(io, result, "consolidation pass");
      });
    });
  for (const sub of consolidate.commands) sub.exitOverride();
}

function passOptions2(memory: Memory, flags: PassFlags) {
  const maxTokens = positiveInt("--max-tokens", flags.maxTokens);
  return {
    ...nowOption(flags.now),
    model: flags.model ? hostModel(memory) : null,
    ...(maxTokens ? { maxTokens } : {}),
    ...(flags.skipUnsafe ? { skipUnsafe: true } : {}),
  };
}

/** The plan as JSON: everything but the journal's contents. */
function jsonPlan(plan: ConsolidationPlan) {
  const { lifecycle, basis: _basis, ...rest } = plan;
  return { ...rest, steps: lifecycle.steps.length };
}

function printPlan(io: Io, plan: ConsolidationPlan, diffs: boolean): void {
  const by = plan.model ? `model ${plan.model.id}/${plan.model.model}` : "no model (deterministic)";
  const read = plan.newMaterial.filter((m) => m.processed);
  line(io, `Consolidation plan (${by}): ${read.length} files with new notes.`);
  if (plan.tokens.calls) {
    line(
      io,
      `  model: ${plan.tokens.calls} calls, ${plan.tokens.input} tokens sent, ${plan.tokens.output} received${plan.tokens.exhausted ? " — token budget reached, the rest waits for the next pass" : ""}`,
    );
  }
  if (plan.modelError) warn(io, `the model failed: ${plan.modelError}`);
  for (const o of plan.operations) {
    const where = o.targets.length
      ? ` ${o.targets.map(formatRef).join(", ")}`
      : o.file
        ? ` → ${o.file}`
        : "";
    line(io, `${o.id} ${o.op}${where}: ${o.text.split("\n")[0]?.slice(0, 120)}`);
    if (o.sources.length)
      line(
        io,
        `    from ${o.sources.map(formatRef).join(", ")}${o.reason ? ` (${o.reason})` : ""}`,
      );
  }
  for (const d of plan.duplicates.filter((x) => x.operation.origin !== "recall")) {
    line(io, `already known: ${d.operation.text.slice(0, 100)} (at ${formatRef(d.existing)})`);
  }
  for (const r of plan.refused) line(io, `refused: ${describeRefusal(r)}`);
  for (const f of plan.guard.failed) {
    line(io, `unsafe: "${f.query}" would no longer find ${formatRef(f.line)} (${f.opId})`);
  }
  if (diffs)
    for (const d of plan.diffs) io.stdout.write(d.diff.endsWith("\n") ? d.diff : `${d.diff}\n`);
  if (plan.lifecycle.steps.length === 0) {
    line(io, "Nothing to do.");
    return;
  }
  line(
    io,
    `${plan.operations.length} operations, ${plan.refused.length} refused, ${plan.diffs.length} files. Run "engram consolidate apply" to carry them out.`,
  );
  if (plan.guard.failed.length) {
    line(io, "The apply is refused while operations are unsafe; --skip-unsafe leaves them out.");
  }
}

/** `Undid …` with the files restored. */
export function printUndo(io: Io, result: ApplyResult, what: string): void {
  if (result.recovered) {
    line(
      io,
      `Finished an interrupted ${result.recovered.kind} first (${result.recovered.outcome}).`,
    );
  }
  line(io, `Undid the last ${what} (${result.steps} steps); restored ${result.paths.join(", ")}.`);
  if (result.indexWarning) warn(io, result.indexWarning);
}
