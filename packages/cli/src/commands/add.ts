import { text as readStream } from "node:stream/consumers";
import { EngramError } from "@engram/core";
import type { Command } from "commander";
import { withMemory } from "../context.js";
import { type Io, json, line } from "../output.js";

/** `engram add "text"`: append to today's log (or MEMORY.md with --long-term), then index it. */
export function registerAdd(
  program: Command,
  io: Io,
  stdin: NodeJS.ReadableStream = process.stdin,
): void {
  program
    .command("add")
    .description(
      "append a timestamped entry to today's daily log, or to MEMORY.md with --long-term",
    )
    .argument("<text...>", 'what to remember ("-" reads standard input)')
    .option(
      "-l, --long-term",
      "append to the long-term file (MEMORY.md, or the layout's) under a timestamp heading",
    )
    .option("--date <YYYY-MM-DD>", "the daily log to append to (default: today)")
    .action(async (words: string[], opts: { longTerm?: boolean; date?: string }, cmd: Command) => {
      const text =
        words.length === 1 && words[0] === "-" ? await readStream(stdin) : words.join(" ");
      if (opts.longTerm && opts.date) {
        throw new EngramError("INVALID_ARGUMENT", "--date applies to daily logs, not --long-term", {
          hint: "drop one of the two flags",
        });
      }
      await withMemory(
        cmd,
        async (memory, g) => {
          const result = opts.longTerm
            ? await memory.appendLongTerm(text)
            : await memory.appendDaily(text, opts.date ? { date: opts.date } : {});
          const report = await memory.sync({ paths: [result.path], wait: false });
          const indexed = report !== undefined && report.skipped.length === 0;
          if (g.json) return json(io, { ...result, indexed });
          line(
            io,
            `Added to ${result.path} (lines ${result.startLine}-${result.endLine})${indexed ? "" : "; it will be indexed by the sync running elsewhere"}`,
          );
        },
        { create: true },
      );
    });
}
