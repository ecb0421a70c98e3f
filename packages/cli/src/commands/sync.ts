import type { SyncReport } from "@engram/core";
import type { Command } from "commander";
import { withMemory } from "../context.js";
import { duration, type Io, json, line, plural, warn } from "../output.js";
import { syncProgressBar } from "../progress.js";

/** `engram sync`: bring the index in line with the files. */
export function registerSync(program: Command, io: Io): void {
  program
    .command("sync")
    .description("index new and changed files, drop deleted ones")
    .option("-f, --force", "rebuild the index from scratch")
    .action(async (flags: { force?: boolean }, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const bar = syncProgressBar(io, !g.json);
        let report: SyncReport | undefined;
        try {
          report = await memory.sync({
            ...(flags.force ? { force: true } : {}),
            ...(bar.onProgress ? { onProgress: bar.onProgress } : {}),
          });
        } finally {
          bar.stop();
        }
        if (!report) return;
        if (g.json) return json(io, report);
        for (const w of report.warnings) warn(io, w);
        for (const s of report.skipped) warn(io, `skipped ${s.path}: ${s.reason}`);
        line(io, describeSync(report));
      });
    });
}

/** One line saying what a sync did. */
export function describeSync(r: SyncReport): string {
  const changes = [
    r.added && `${r.added} added`,
    r.updated && `${r.updated} updated`,
    r.removed && `${r.removed} removed`,
    r.skipped.length && `${r.skipped.length} skipped`,
  ].filter(Boolean);
  const what = changes.length ? changes.join(", ") : "no changes";
  const rebuilt =
    r.rebuilt && r.rebuildReasons.length ? ` (rebuilt: ${r.rebuildReasons.join("; ")})` : "";
  const embedded =
    r.embedding.embedded || r.embedding.cacheHits
      ? `, ${r.embedding.embedded} embedded, ${r.embedding.cacheHits} from cache`
      : "";
  return `Synced ${plural(r.files, "file")}: ${what}; ${plural(r.chunks, "chunk")} written${embedded} in ${duration(r.durationMs)}${rebuilt}`;
}
