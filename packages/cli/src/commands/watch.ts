import type { Command } from "commander";
import { globals, positiveInt } from "../context.js";
import { type Io, line, warn } from "../output.js";
import { openMemory, workspaceDir } from "../workspace.js";
import { describeSync } from "./sync.js";

/** `engram watch`: sync, then keep the index fresh while files change, until Ctrl-C. */
export function registerWatch(program: Command, io: Io): void {
  program
    .command("watch")
    .description("keep the index fresh while files are edited (debounced sync), until interrupted")
    .option("--debounce <ms>", "quiet period after the last change before syncing (default 1500)")
    .action(async (flags: { debounce?: string }, cmd: Command) => {
      const g = globals(cmd);
      const debounceMs = positiveInt("--debounce", flags.debounce);
      const memory = await openMemory(workspaceDir(g.workspace));
      // With --json every event is one compact JSON object per line (NDJSON), for scripts.
      const emit = (event: string, data: object, text: string) =>
        g.json ? line(io, JSON.stringify({ event, ...data })) : line(io, text);
      try {
        const first = await memory.sync();
        if (first) emit("sync", first, describeSync(first));
        const watcher = memory.watch({
          ...(debounceMs ? { debounceMs } : {}),
          onSync: (report) => {
            if (report.added || report.updated || report.removed || report.skipped.length) {
              emit("sync", report, describeSync(report));
            }
          },
          onError: (error) =>
            g.json
              ? emit("error", { message: (error as Error).message }, "")
              : warn(io, `sync failed, will retry on the next change: ${(error as Error).message}`),
        });
        await watcher.ready;
        emit(
          "ready",
          { workspace: memory.workspace },
          `Watching ${memory.workspace} (Ctrl-C to stop)`,
        );
        await new Promise<void>((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
      } finally {
        await memory.close();
      }
    });
}
