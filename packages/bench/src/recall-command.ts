import { type Io, json, line } from "@engram/cli";
import { EngramError } from "@engram/core";
import type { Command } from "commander";
import { globals } from "./flags.js";

/** `engram-bench recall --entries 5000 --flushes 130`: the recall log's cost as it grows. */
export function registerRecallBench(program: Command, io: Io): void {
  program
    .command("recall")
    .description(
      "time the recall log's flush (a search's, at close) and its reads, the log filled to --entries",
    )
    .option("--entries <list>", "entries in the log before timing, comma-separated", "100,5000")
    .option("--flushes <n>", "timed flushes per size (every 64th folds the batches)", "130")
    .action(async (flags: { entries: string; flushes: string }, cmd: Command) => {
      const sizes = flags.entries.split(",").map((s) => Number(s.trim()));
      const flushes = Number(flags.flushes);
      if (
        sizes.some((n) => !Number.isInteger(n) || n < 1) ||
        !Number.isInteger(flushes) ||
        flushes < 1
      ) {
        throw new EngramError(
          "INVALID_ARGUMENT",
          "--entries and --flushes take whole numbers ≥ 1",
          {
            hint: "for example --entries 100,5000 --flushes 130",
          },
        );
      }
      const { benchRecallLog } = await import("./recall-log.js");
      const results = [];
      for (const entries of sizes) results.push(await benchRecallLog({ entries, flushes }));
      if (globals(cmd).json) return json(io, { results });
      line(
        io,
        "| entries | flushes | flush p50 | flush p95 | flush max | first read | read after a flush, p50 | max |",
      );
      line(io, "|--:|--:|--:|--:|--:|--:|--:|--:|");
      const ms = (v: number) => `${v.toFixed(1)} ms`;
      for (const r of results) {
        const { flushMs: f, readMs: read } = r;
        const cells = [r.entries, r.flushes, ms(f.p50), ms(f.p95), ms(f.max)];
        line(io, `| ${[...cells, ms(read.first), ms(read.p50), ms(read.max)].join(" | ")} |`);
      }
    });
}
