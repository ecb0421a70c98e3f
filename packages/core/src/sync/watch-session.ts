import { EngramError } from "../errors.js";
import { transcriptFolder } from "../sessions/scan.js";
import type { IndexContext } from "./context.js";
import { removeHeartbeat, type WatchHeartbeat, writeHeartbeat } from "./heartbeat.js";
import { planSync } from "./plan.js";
import {
  LAST_SYNC_META_KEY,
  PENDING_VECTORS_META_KEY,
  parsePendingPaths,
  type SyncReport,
} from "./report.js";
import { type Watcher, watchWorkspace } from "./watcher.js";

/** Options of `Memory.watch`. */
export interface MemoryWatchOptions {
  /** Quiet period after the last change before syncing (default: config `sync.watchDebounceMs`). */
  debounceMs?: number;
  /** Light (stat-only) re-scan interval (default: config `sync.rescanIntervalMs`, 5 min; 0: never). */
  rescanIntervalMs?: number;
  /** How often watched folders are checked for being deleted or replaced (default 2000 ms). */
  healthCheckMs?: number;
  /**
   * Write `.engram/watch.json` (pid, start, last event/sync/error) for `engram status`, refreshed
   * every `heartbeatMs` (default true, every 30 s).
   */
  heartbeat?: boolean;
  heartbeatMs?: number;
  onSync?: (report: SyncReport) => void;
  onError?: (error: unknown) => void;
  onChange?: (event: string, path: string) => void;
  onReattach?: (reason: string) => void;
  /**
   * The workspace folder was deleted and created again, so the index this process has open may
   * be gone: reopen the memory. Default: reported through `onError` (`WORKSPACE_MISSING`).
   */
  onWorkspaceReplaced?: () => void;
}

const DEFAULT_HEARTBEAT_MS = 30_000;

/**
 * @internal The watcher behind `Memory.watch`: {@link watchWorkspace} on the workspace, memory
 * folders and transcripts, a stat-only pending check for the periodic re-scan, and the heartbeat
 * file `engram status` reads.
 */
export function startWatch(
  ctx: IndexContext,
  sync: () => Promise<SyncReport | undefined>,
  options: MemoryWatchOptions = {},
): Watcher {
  const { workspace, config } = ctx;
  const beatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const now = () => new Date().toISOString();
  const heartbeat: WatchHeartbeat = { pid: process.pid, startedAt: now(), beatAt: now(), beatMs };
  let writes: Promise<void> = Promise.resolve();
  const beat = (update: Partial<WatchHeartbeat> = {}) => {
    Object.assign(heartbeat, update, { beatAt: now() });
    if (options.heartbeat === false) return;
    const snapshot = { ...heartbeat };
    // A heartbeat that cannot be written (e.g. the workspace is gone) is not worth failing over.
    writes = writes.then(() => writeHeartbeat(workspace, snapshot).catch(() => undefined));
  };
  const onError = (error: unknown) => {
    beat({ lastError: { at: now(), message: (error as Error)?.message ?? String(error) } });
    options.onError?.(error);
  };

  const watcher = watchWorkspace(
    {
      workspace,
      extraPaths: config.extraPaths,
      sessionsDir: transcriptFolder(workspace, config.sessions),
      sync: async () => {
        const report = await sync();
        if (!report) return;
        delete heartbeat.lastError; // recovered
        beat({ lastSyncAt: report.finishedAt });
        options.onSync?.(report);
      },
      hasPending: async () => {
        const owed = ctx.embedder
          ? parsePendingPaths(await ctx.store.getMeta(PENDING_VECTORS_META_KEY))
          : [];
        const plan = await planSync(ctx, { redo: new Set(owed) });
        return plan.changed.length + plan.removed.length > 0;
      },
    },
    {
      debounceMs: options.debounceMs ?? config.sync.watchDebounceMs,
      rescanIntervalMs: options.rescanIntervalMs ?? config.sync.rescanIntervalMs,
      ...(options.healthCheckMs !== undefined ? { healthCheckMs: options.healthCheckMs } : {}),
      onChange: (event, path) => {
        heartbeat.lastEventAt = now();
        options.onChange?.(event, path);
      },
      onError,
      onReattach: (reason) => {
        beat({ lastReattach: { at: now(), reason } });
        options.onReattach?.(reason);
      },
      onWorkspaceReplaced:
        options.onWorkspaceReplaced ??
        (() =>
          onError(
            new EngramError(
              "WORKSPACE_MISSING",
              `the workspace ${workspace} was deleted and created again; the index open in this process may be gone`,
              { hint: "close this memory and open it again (engram watch does this itself)" },
            ),
          )),
      onRescan: () => beat({ lastRescanAt: now() }),
    },
  );
  const ticker = setInterval(() => beat(), beatMs);
  ticker.unref();
  // Ready once the heartbeat is on disk, so `status` sees the watcher as soon as it says ready.
  const ready = watcher.ready.then(async () => {
    const last = await ctx.store.getMeta(LAST_SYNC_META_KEY).catch(() => undefined);
    const finishedAt = last ? (JSON.parse(last) as Partial<SyncReport>).finishedAt : undefined;
    beat(finishedAt ? { lastSyncAt: finishedAt } : {});
    return writes;
  });

  return {
    ready,
    async close() {
      clearInterval(ticker);
      await watcher.close();
      await writes;
      if (options.heartbeat !== false) await removeHeartbeat(workspace, heartbeat).catch(() => {});
    },
  };
}
