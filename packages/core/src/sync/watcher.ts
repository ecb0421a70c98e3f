import type { Stats } from "node:fs";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { FSWatcher } from "chokidar";
import { INDEX_DIR, MEMORY_DIR, MEMORY_FILE } from "../workspace/layout.js";

/** Options for {@link watchWorkspace}. */
export interface WatchOptions {
  /** Quiet period after the last change before syncing (default: config `sync.watchDebounceMs`). */
  debounceMs: number;
  /** Full re-scan every this many ms even without events, to catch missed ones (0: never). */
  rescanIntervalMs?: number;
  /** Called for every change event that schedules a sync. */
  onChange?: (event: string, path: string) => void;
  /** Called when a sync fails; the watcher keeps going. */
  onError?: (error: unknown) => void;
}

/** A running watcher. */
export interface Watcher {
  /** Resolves once the initial crawl is done and events are being delivered. */
  readonly ready: Promise<void>;
  /** Stop watching; waits for a sync in flight. */
  close(): Promise<void>;
}

/**
 * Watch `MEMORY.md`, `memory/**` and the extra paths; after each burst of changes (debounced),
 * run `sync`. Symlinks are not followed, `.engram/` and hidden folders are ignored, and only `.md`
 * file events count. `memory/` may appear after the watcher starts.
 */
export function watchWorkspace(
  target: { workspace: string; extraPaths: readonly string[]; sync: () => Promise<unknown> },
  options: WatchOptions,
): Watcher {
  const { workspace } = target;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  let closed = false;

  const runSync = () => {
    timer = undefined;
    if (closed) return;
    inFlight = target.sync().catch((error: unknown) => options.onError?.(error));
  };
  const schedule = (event: string, path: string) => {
    if (closed) return;
    options.onChange?.(event, path);
    if (timer) clearTimeout(timer);
    timer = setTimeout(runSync, options.debounceMs);
  };

  const extras = target.extraPaths.map((p) => resolve(workspace, p));
  const indexDir = join(workspace, INDEX_DIR);
  const roots = new Set([workspace, ...extras]);
  const ignored = (path: string, stats?: Stats) => {
    if (roots.has(path)) return false;
    if (isWithin(indexDir, path)) return true;
    const name = basename(path);
    if (name.startsWith(".") || name === "node_modules") return true;
    if (stats?.isFile() && !name.toLowerCase().endsWith(".md")) return true;
    if (isWithin(workspace, path)) {
      // In the workspace only MEMORY.md, memory/ and extra paths (or folders leading to them) count.
      const top = relative(workspace, path).split(sep)[0];
      const related = extras.some((e) => isWithin(e, path) || isWithin(path, e));
      if (top !== MEMORY_DIR && top !== MEMORY_FILE && !related) return true;
    }
    return false;
  };

  // chokidar is loaded on first watch: one-shot commands never pay for it.
  const started: Promise<FSWatcher> = import("chokidar").then(({ watch }) => {
    const watcher = watch([workspace, ...target.extraPaths], {
      ignoreInitial: true,
      followSymlinks: false,
      ignored,
    });
    for (const event of ["add", "change", "unlink", "addDir", "unlinkDir"] as const) {
      watcher.on(event, (path: string) => schedule(event, path));
    }
    watcher.on("error", (error) => options.onError?.(error));
    return watcher;
  });
  const ready = started.then(
    (watcher) => new Promise<void>((resolve) => watcher.once("ready", () => resolve())),
  );

  const interval =
    options.rescanIntervalMs && options.rescanIntervalMs > 0
      ? setInterval(() => {
          if (!timer) runSync();
        }, options.rescanIntervalMs)
      : undefined;
  interval?.unref();

  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (interval) clearInterval(interval);
      await (await started).close();
      await inFlight;
    },
  };
}

function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
