import {
  type MaintenanceScheduler,
  type Memory,
  startMaintenance,
  type Watcher,
} from "@engram/core";
import type { Command } from "commander";
import { globals, positiveInt } from "../context.js";
import { type Io, line, warn } from "../output.js";
import { stopSignal } from "../stop-signal.js";
import { openMemory, workspaceDir } from "../workspace.js";
import { describeSync } from "./sync.js";

/** Wait before trying again to open a workspace that was replaced but is not usable yet. */
const REOPEN_RETRY_MS = 2000;

/**
 * `engram watch`: sync, then keep the index fresh while files change, until Ctrl-C. When the
 * workspace folder itself is deleted and created again (its index went with it), the memory is
 * reopened on the new folder and fully synced.
 */
export function registerWatch(program: Command, io: Io): void {
  program
    .command("watch")
    .description("keep the index fresh while files are edited (debounced sync), until interrupted")
    .option("--debounce <ms>", "quiet period after the last change before syncing (default 1500)")
    .action(async (flags: { debounce?: string }, cmd: Command) => {
      const g = globals(cmd);
      const debounceMs = positiveInt("--debounce", flags.debounce);
      const dir = workspaceDir(g.workspace);
      // With --json every event is one compact JSON object per line (NDJSON), for scripts.
      const emit = (event: string, data: object, text: string) =>
        g.json ? line(io, JSON.stringify({ event, ...data })) : line(io, text);
      const failed = (error: unknown, what: string) =>
        g.json
          ? emit("error", { message: (error as Error).message }, "")
          : warn(io, `${what}: ${(error as Error).message}`);

      let memory: Memory = await openMemory(dir, { longLived: true });
      let stopped = false;
      let maintenance: MaintenanceScheduler | undefined;
      let reopening: Promise<void> | undefined;

      const start = async (current: Memory): Promise<Watcher> => {
        const first = await current.sync();
        if (first) emit("sync", first, describeSync(first));
        const watcher = current.watch({
          ...(debounceMs ? { debounceMs } : {}),
          onSync: (report) => {
            for (const note of report.recovered ?? []) {
              if (g.json) emit("recovered", { message: note }, "");
              else warn(io, note);
            }
            const { added, updated, removed, skipped, deferred } = report;
            if (added || updated || removed || skipped.length) {
              emit("sync", report, describeSync(report));
            } else if (deferred) {
              emit(
                "sync",
                report,
                `${deferred} transcript(s) grew, waiting for the re-index delta`,
              );
            }
          },
          onError: (error) => failed(error, "sync failed, will retry on the next change"),
          onReattach: (reason) =>
            emit("reattach", { reason }, `Re-attached the file watcher (${reason})`),
          onWorkspaceReplaced: () => {
            reopening ??= reopen().finally(() => {
              reopening = undefined;
            });
          },
        });
        await watcher.ready;
        // Lifecycle rules and consolidation on the config's schedule (one process runs each).
        await maintenance?.stop();
        maintenance = startMaintenance(current, {
          onRun: (run) =>
            emit(
              "maintenance",
              run,
              `Maintenance (${run.trigger}): ${run.outcome}${run.errors ? ` — ${run.errors.join("; ")}` : ""}`,
            ),
          onError: (error) => failed(error, "maintenance failed"),
        });
        void maintenance.tick();
        return watcher;
      };

      // The old index went with the old folder: open the new one and index it from scratch.
      const reopen = async (): Promise<void> => {
        await memory.close().catch(() => {});
        while (!stopped) {
          try {
            memory = await openMemory(dir, { longLived: true });
            await start(memory);
            emit("reopened", { workspace: memory.workspace }, `Reopened ${memory.workspace}`);
            return;
          } catch (error) {
            failed(error, "workspace replaced, cannot reopen it yet");
            await new Promise((resolve) => setTimeout(resolve, REOPEN_RETRY_MS));
          }
        }
      };

      try {
        await start(memory);
        emit(
          "ready",
          { workspace: memory.workspace, pid: process.pid },
          `Watching ${memory.workspace} (Ctrl-C to stop)`,
        );
        await stopSignal().stopped;
      } finally {
        stopped = true;
        await maintenance?.stop();
        await reopening?.catch(() => {});
        await memory.close();
      }
    });
}
