import { type Io, json, line, positiveInt } from "@engram/cli";
import type { Command } from "commander";
import { globals } from "./flags.js";

/** `engram-bench consolidate`: a pass's time on a synthetic workspace, and a model's tokens. */
export function registerConsolidateBench(bench: Command, io: Io): void {
  bench
    .command("consolidate")
    .description(
      "time a consolidation pass without a model on a synthetic workspace, and count the tokens a model is sent per consolidated day",
    )
    .option("--files <n>", "files of the synthetic workspace", "1000")
    .option("--runs <n>", "timed passes, each on a fresh copy (medians are reported)", "3")
    .option("--days <n>", "days of the simulated month with a scripted model", "30")
    .action(async (flags: { files: string; runs: string; days: string }, cmd: Command) => {
      const g = globals(cmd);
      const { benchConsolidate } = await import("./consolidate.js");
      const r = await benchConsolidate({
        files: positiveInt("--files", flags.files) ?? 1000,
        runs: positiveInt("--runs", flags.runs) ?? 3,
        days: positiveInt("--days", flags.days) ?? 30,
        log: (text) => io.stderr.write(`${text}\n`),
      });
      if (g.json) return json(io, r);
      const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(0)} ms`);
      line(
        io,
        `Consolidation of ${r.workspace.files} files (${r.workspace.dailyLogs} daily logs, ${r.workspace.longTermFiles} long-term files, ${r.workspace.entries} entries), no model, medians of ${r.runs} runs:`,
      );
      line(io, "| measure | median | vs. reading + hashing every file once |");
      line(io, "|---|---|---|");
      line(io, `| read + hash (baseline) | ${ms(r.readHashMs)} | ×1 |`);
      line(io, `| plan | ${ms(r.pass.planMs)} | ×${(r.pass.planMs / r.readHashMs).toFixed(1)} |`);
      line(
        io,
        `| apply (journal, archive, report, index) | ${ms(r.pass.applyMs)} | ×${(r.pass.applyMs / r.readHashMs).toFixed(1)} |`,
      );
      line(
        io,
        `| pass (plan + apply) | ${ms(r.pass.totalMs)} | ×${(r.pass.totalMs / r.readHashMs).toFixed(1)} |`,
      );
      line(
        io,
        `| next night's pass (1 new log, nothing to merge) | ${ms(r.nextPassMs)} | ×${(r.nextPassMs / r.readHashMs).toFixed(1)} |`,
      );
      line(io, `(first pass: ${r.pass.operations} operations, ${r.pass.merged} merges)`);
      line(
        io,
        `With a scripted model over ${r.model.days} days (12 notes a day): tokens sent per consolidated day median ${r.model.input.median}, max ${r.model.input.max}; received median ${r.model.output.median}; ${r.model.calls} calls (core's estimator).`,
      );
    });
}
