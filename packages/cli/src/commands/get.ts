import { EngramError } from "@engram/core";
import type { Command } from "commander";
import { positiveInt, withMemory } from "../context.js";
import { type Io, json } from "../output.js";

/** `engram get <path>`: print exact lines of a memory file (read from the file, not the index). */
export function registerGet(program: Command, io: Io): void {
  program
    .command("get")
    .description("print a memory file, or some of its lines (workspace-relative path)")
    .argument("<path>", "e.g. memory/2026-01-02.md or MEMORY.md")
    .option("--from <n>", "first line to print (1-based)")
    .option("--lines <m>", "how many lines to print")
    .action(async (path: string, flags: { from?: string; lines?: string }, cmd: Command) => {
      const from = positiveInt("--from", flags.from);
      const lines = positiveInt("--lines", flags.lines);
      await withMemory(cmd, async (memory, g) => {
        const result = await memory.get(path, {
          ...(from ? { from } : {}),
          ...(lines ? { lines } : {}),
        });
        if (from !== undefined && from > Math.max(1, result.totalLines)) {
          const has = result.totalLines === 1 ? "1 line" : `${result.totalLines} lines`;
          throw new EngramError(
            "INVALID_ARGUMENT",
            `--from ${from} is past the end of ${result.path}, which has ${has}`,
            {
              hint: result.totalLines
                ? `use --from 1 to ${result.totalLines}`
                : "the file is empty",
            },
          );
        }
        if (g.json) return json(io, result);
        io.stdout.write(
          result.text.endsWith("\n") || result.text === "" ? result.text : `${result.text}\n`,
        );
      });
    });
}
