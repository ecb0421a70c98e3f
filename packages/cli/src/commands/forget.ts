import { lstat } from "node:fs/promises";
import path from "node:path";
import { EngramError, type LineRef, tryParseRef, undoForget } from "@engram/core";
import type { Command } from "commander";
import { withMemory } from "../context.js";
import { type Io, json, line, warn } from "../output.js";
import { printUndo } from "./consolidate.js";

/** `engram forget <path:start-end | "text">`: take lines out of memory, archived, undoable. */
export function registerForget(program: Command, io: Io): void {
  program
    .command("forget")
    .description(
      "take lines out of memory (path:start-end, or every entry containing a text): archived with the reason, never added back, undoable",
    )
    .argument(
      "[target...]",
      "lines as a search result cites them (MEMORY.md:12-14), or the text to forget",
    )
    .option("--reason <text>", "why (kept with the archived lines)")
    .option(
      "--from-log",
      "allow striking lines from a daily log (logs are otherwise never rewritten)",
    )
    .option("--dry-run", "only show what would be forgotten")
    .option("--undo", "undo the last forget")
    .action(
      async (
        words: string[],
        flags: { reason?: string; fromLog?: boolean; dryRun?: boolean; undo?: boolean },
        cmd: Command,
      ) => {
        await withMemory(cmd, async (memory, g) => {
          if (flags.undo) {
            const result = await undoForget(memory);
            if (g.json) return json(io, result);
            return printUndo(io, result, "forget");
          }
          const text = words.join(" ").trim();
          if (!text) {
            throw new EngramError("INVALID_ARGUMENT", "name what to forget", {
              hint: 'engram forget MEMORY.md:12-14, or engram forget "the text", or --undo',
            });
          }
          const target = await lineTarget(memory.workspace, text);
          const result = await memory.forget(target ?? { query: text }, {
            ...(flags.reason ? { reason: flags.reason } : {}),
            fromLog: flags.fromLog === true,
            dryRun: flags.dryRun === true,
          });
          if (g.json) return json(io, result);
          for (const f of result.forgotten) {
            line(
              io,
              `${flags.dryRun ? "would forget" : "forgot"} ${f.path}:${f.startLine}-${f.endLine}: ${f.text.split("\n")[0]?.slice(0, 100)}`,
            );
          }
          if (!result.dryRun) {
            line(
              io,
              `Archived in ${result.archivedTo}; consolidation will not add it back. Undo with "engram forget --undo".`,
            );
            if (result.indexWarning) warn(io, result.indexWarning);
          }
        });
      },
    );
}

/** `path:lines` when the path names a file of the workspace; else null (a text to look for). */
async function lineTarget(workspace: string, text: string): Promise<LineRef | null> {
  const ref = tryParseRef(text);
  if (!ref) return null;
  const st = await lstat(path.join(workspace, ...ref.path.split("/"))).catch(() => null);
  return st?.isFile() ? ref : null;
}
