import { text as readStream } from "node:stream/consumers";
import { EngramError, parseRef, undoUpdate } from "@engram/core";
import type { Command } from "commander";
import { withMemory } from "../context.js";
import { type Io, json, line, warn } from "../output.js";
import { printUndo } from "./consolidate.js";

/** `engram update <path:start-end | path#Heading> "text"`: replace long-term memory, archiving the old text. */
export function registerUpdate(
  program: Command,
  io: Io,
  stdin: NodeJS.ReadableStream = process.stdin,
): void {
  program
    .command("update")
    .description(
      "replace lines or a section of a long-term memory file, archiving the old text (undoable)",
    )
    .argument("[target]", "MEMORY.md:12-14 (lines) or MEMORY.md#Preferences (a section's body)")
    .argument("[text...]", 'the new text ("-" reads standard input)')
    .option("--reason <text>", "why (kept with the archived text)")
    .option("--undo", "undo the last update")
    .action(
      async (
        target: string | undefined,
        words: string[],
        flags: { reason?: string; undo?: boolean },
        cmd: Command,
      ) => {
        await withMemory(cmd, async (memory, g) => {
          if (flags.undo) {
            const result = await undoUpdate(memory);
            if (g.json) return json(io, result);
            return printUndo(io, result, "update");
          }
          const text =
            words.length === 1 && words[0] === "-" ? await readStream(stdin) : words.join(" ");
          if (!target || !text.trim()) {
            throw new EngramError(
              "INVALID_ARGUMENT",
              "name the lines or section and the new text",
              {
                hint: 'engram update MEMORY.md:12 "the corrected fact", or --undo',
              },
            );
          }
          const hash = target.indexOf("#");
          const where =
            hash > 0
              ? { path: target.slice(0, hash), section: target.slice(hash + 1) }
              : parseRef(target, "target");
          const result = await memory.update(
            where,
            text,
            flags.reason ? { reason: flags.reason } : {},
          );
          if (g.json) return json(io, result);
          line(
            io,
            `Updated ${result.path}:${result.startLine}-${result.endLine}; the old text is in ${result.archivedTo}. Undo with "engram update --undo".`,
          );
          if (result.dropped.length)
            warn(io, `the new text leaves out ${result.dropped.join(", ")}`);
          if (result.indexWarning) warn(io, result.indexWarning);
        });
      },
    );
}
