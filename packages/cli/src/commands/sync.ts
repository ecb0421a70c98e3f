import type { LockWait, SyncEstimate, SyncReport, WarmUpReport } from "@engram/core";
import type { Command } from "commander";
import { positiveInt, withMemory } from "../context.js";
import { duration, type Io, json, line, plural, warn } from "../output.js";
import { syncProgressBar } from "../progress.js";

/** `engram sync`: bring the index in line with the files. */
export function registerSync(program: Command, io: Io): void {
  program
    .command("sync")
    .description("index new and changed files, drop deleted ones")
    .option("-f, --force", "rebuild the index from scratch")
    .option("--dry-run", "say what would be indexed and embedded (chunks, tokens), change nothing")
    .option(
      "--max-tokens <n>",
      "embed at most ~n tokens this time; the rest stays keyword-searchable and is embedded next time",
    )
    .action(async (flags: SyncFlags, cmd: Command) => {
      const maxTokens = positiveInt("--max-tokens", flags.maxTokens);
      await withMemory(cmd, async (memory, g) => {
        if (flags.dryRun) {
          const estimate = await memory.estimateSync();
          return g.json ? json(io, estimate) : line(io, describeEstimate(estimate));
        }
        const bar = syncProgressBar(io, !g.json);
        let report: SyncReport | undefined;
        try {
          report = await memory.sync({
            ...(flags.force ? { force: true } : {}),
            ...(maxTokens !== undefined ? { maxTokens } : {}),
            ...(bar.onProgress ? { onProgress: bar.onProgress } : {}),
            onLockWait: (wait) => warn(io, describeLockWait(wait)),
          });
        } finally {
          bar.stop();
        }
        if (!report) return;
        if (g.json) return json(io, report);
        for (const w of report.warnings) warn(io, w);
        for (const s of report.skipped) warn(io, `skipped ${s.path}: ${s.reason}`);
        line(io, describeSync(report));
        const e = report.embedding;
        if (e.stopped) {
          warn(
            io,
            `embedding stopped: ${e.stopped.message}; ${plural(e.pendingFiles, "file")} searchable by keyword, vectors owed to the next sync`,
          );
        } else if (e.pendingFiles) {
          warn(io, `${plural(e.pendingFiles, "file")} still wait for vectors`);
        }
      });
    });
}

interface SyncFlags {
  force?: boolean;
  dryRun?: boolean;
  maxTokens?: string;
}

/** One line saying which process a sync waits for, and for how long at most. */
export function describeLockWait(wait: LockWait): string {
  const pid = wait.holder?.pid;
  const who =
    pid === undefined
      ? "another engram process"
      : `engram process ${pid}${wait.state === "stopped" ? " (stopped: resume it with `kill -CONT " + pid + "` or `fg`)" : ""}`;
  return `waiting for ${who} to finish its ${wait.name} (up to ${Math.round(wait.timeoutMs / 1000)} s)…`;
}

/** One line saying what a sync would do and cost. */
export function describeEstimate(e: SyncEstimate): string {
  const rebuild = e.rebuildReasons.length ? ` (rebuild: ${e.rebuildReasons.join("; ")})` : "";
  const embed =
    e.provider === "none"
      ? "no embedding provider (keyword search only)"
      : `${plural(e.toEmbed.chunks, "chunk")} to embed with ${e.provider}, ~${e.toEmbed.tokens} tokens; ${e.cacheHits} from cache`;
  return `Dry run: ${plural(e.files.index, "file")} to index, ${e.files.removed} to remove, ${plural(e.chunks, "chunk")}; ${embed}${rebuild}. Nothing was changed.`;
}

/** One line saying a long-lived process is ready for searches (see core's `warmUp`). */
export function describeWarmUp(w: WarmUpReport): string {
  const how = w.indexLoaded ? "from the index in memory" : "from the store";
  return `ready to search ${how} (warmed up in ${duration(w.ms)})`;
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
      ? `, ${r.embedding.embedded} embedded (${r.embedding.requests} requests, ~${r.embedding.tokens} tokens), ${r.embedding.cacheHits} from cache${r.embedding.fallbackUsed ? ` by fallback ${r.embedding.provider}` : ""}`
      : "";
  return `Synced ${plural(r.files, "file")}: ${what}; ${plural(r.chunks, "chunk")} written${embedded} in ${duration(r.durationMs)}${rebuilt}`;
}
