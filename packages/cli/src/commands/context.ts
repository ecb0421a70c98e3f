import { buildMemoryContext, EngramError } from "@engram/core";
import type { Command } from "commander";
import { positiveInt, withMemory } from "../context.js";
import { type Io, json, line } from "../output.js";

interface ContextFlags {
  scope?: string;
  days?: string;
  maxChars?: string;
  date?: string;
}

/** `engram context`: the memory part of a system prompt (long-term memory + recent daily logs). */
export function registerContext(program: Command, io: Io): void {
  program
    .command("context")
    .description(
      "print the memory context for a system prompt: long-term memory + today's and yesterday's logs",
    )
    .option("--scope <scope>", "main | group (group: no MEMORY.md, no private or sensitive text)")
    .option("--days <n>", "days of daily logs, today included (default 2)")
    .option("--max-chars <n>", "character budget of the whole context (default 12000)")
    .option("--date <YYYY-MM-DD>", "the day counted as today (default: today)")
    .action(async (flags: ContextFlags, cmd: Command) => {
      const scope = flags.scope;
      if (scope !== undefined && scope !== "main" && scope !== "group") {
        throw new EngramError("INVALID_ARGUMENT", `--scope must be main or group, got "${scope}"`, {
          hint: "for example --scope group",
        });
      }
      const days = positiveInt("--days", flags.days);
      const maxChars = positiveInt("--max-chars", flags.maxChars);
      await withMemory(cmd, async (memory, g) => {
        const context = await buildMemoryContext(memory, {
          ...(scope ? { scope } : {}),
          ...(days ? { days } : {}),
          ...(maxChars ? { maxChars } : {}),
          ...(flags.date ? { date: flags.date } : {}),
        });
        if (g.json) return json(io, context);
        if (context.text === "") line(io, "(no memory to show in this scope)");
        else line(io, context.text);
      });
    });
}
