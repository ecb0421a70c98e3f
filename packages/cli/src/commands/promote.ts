import { text as readStream } from "node:stream/consumers";
import { promote } from "@engram/core";
import type { Command } from "commander";
import { unitNumber, withMemory } from "../context.js";
import { type Io, json, line } from "../output.js";

/** `engram promote "text"`: append to long-term memory unless it is already there. */
export function registerPromote(
  program: Command,
  io: Io,
  stdin: NodeJS.ReadableStream = process.stdin,
): void {
  program
    .command("promote")
    .description(
      "append a fact to long-term memory under a timestamp heading, unless it is already there",
    )
    .argument("<text...>", 'the fact to keep ("-" reads standard input)')
    .option(
      "--to <file>",
      "long-term file (default: lifecycle.promote.file, else the layout's, e.g. MEMORY.md)",
    )
    .option("--section <title>", "a ### heading above the text inside the entry")
    .option("--tags <list>", "comma-separated tags, written as a tags: line")
    .option("--threshold <0..1>", "near-duplicate threshold (Jaccard of terms; default 0.8)")
    .action(
      async (
        words: string[],
        flags: { to?: string; section?: string; tags?: string; threshold?: string },
        cmd: Command,
      ) => {
        const text =
          words.length === 1 && words[0] === "-" ? await readStream(stdin) : words.join(" ");
        const threshold = unitNumber("--threshold", flags.threshold);
        await withMemory(cmd, async (memory, g) => {
          const result = await promote(memory, text, {
            ...(flags.to ? { to: flags.to } : {}),
            ...(flags.section ? { section: flags.section } : {}),
            ...(flags.tags ? { tags: flags.tags.split(",") } : {}),
            ...(threshold !== undefined ? { threshold } : {}),
          });
          if (g.json) return json(io, result);
          if (result.written) {
            return line(
              io,
              `Promoted to ${result.path} (lines ${result.startLine}-${result.endLine})`,
            );
          }
          const d = result.duplicate;
          const how =
            d.method === "exact"
              ? "exact duplicate"
              : `${d.method} similarity ${d.similarity.toFixed(2)}`;
          line(io, `Not written: already in ${d.path} (lines ${d.startLine}-${d.endLine}; ${how})`);
        });
      },
    );
}
