import type { Stats } from "node:fs";
import { lstatSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { FSWatcher } from "chokidar";
import { isTranscriptName } from "../sessions/scan.js";
import { INDEX_DIR, MEMORY_DIR, MEMORY_FILE } from "../workspace/layout.js";

/** Options for {@link watchWorkspace}. */
export interface WatchOptions {
  /** Quiet period after the last change before syncing (default: config `sync.watchDebounceMs`). */
  debounceMs: number;
  /**
   * Longest a sync is put off while changes keep coming (a transcript appended every second would
   * otherwise never be quiet for `debounceMs`). Default: 10 × `debounceMs`, at least 10 s.
   */
  maxWaitMs?: number;
  /** Light re-scan every this many ms even without events, to catch missed ones (0: never). */
  rescanIntervalMs?: number;
  /**
   * How often the watched folders are checked for having been deleted or replaced (a few `lstat`
   * calls; default 2000 ms, 0: never). A replaced folder re-attaches the file watcher and syncs.
   */
  healthCheckMs?: number;
  /** Called for every change event that schedules a sync. */
  onChange?: (event: string, path: string) => void;
  /** Called when a sync or the file watcher fails; the watcher keeps going. */
  onError?: (error: unknown) => void;
  /** Called after the file watcher was re-attached (after an error, or a folder was replaced). */
  onReattach?: (reason: string) => void;
  /**
   * Called when the workspace folder itself was deleted and created again: whatever held files
   * inside it (e.g. the index in `.engram/`) may be gone. The watcher has re-attached already.
   */
  onWorkspaceReplaced?: () => void;
  /** Called after each periodic re-scan check (whether or not it found changes). */
  onRescan?: (changed: boolean) => void;
}

/** What a watcher watches and what it runs. */
export interface WatchTarget {
  /** Absolute, real path of the workspace. */
  workspace: string;
  extraPaths: readonly string[];
  /** Absolute folder of session transcripts (`*.jsonl`), when sessions are indexed. */
  sessionsDir?: string | undefined;
  /** Bring the index in line with the files. */
  sync: () => Promise<unknown>;
  /**
   * The periodic re-scan's cheap check (stat-only): true when a sync has work to do. Absent: the
   * re-scan always syncs.
   */
  hasPending?: () => Promise<boolean>;
}

/** A running watcher. */
export interface Watcher {
  /** Resolves once the initial crawl is done and events are being delivered. */
  readonly ready: Promise<void>;
  /** Stop watching; waits for a sync in flight. */
  close(): Promise<void>;
}

/** Wait after a file-watcher error before re-attaching; doubled per failure in a row, up to 30 s. */
const REATTACH_MIN_MS = 500;
const REATTACH_MAX_MS = 30_000;

/**
 * Watch `MEMORY.md`, `memory/**`, the extra paths and the sessions folder; after each burst of
 * changes (debounced, at most `maxWaitMs` late), run `sync`. Symlinks are not followed, `.engram/`
 * and hidden folders are ignored, and only `.md` (and, in the sessions folder, `.jsonl`) file
 * events count. `memory/` may appear after the watcher starts.
 *
 * Health: a file-watcher error re-attaches it (with backoff); a watched folder that is deleted and
 * created again (the workspace, `memory/`, the sessions folder, an extra path) is noticed by a
 * cheap periodic `lstat` of each and re-attached, then a sync catches up. A periodic light
 * re-scan (`hasPending`, stat-only) syncs when events were missed.
 */
export function watchWorkspace(target: WatchTarget, options: WatchOptions): Watcher {
  const { workspace } = target;
  const maxWaitMs = options.maxWaitMs ?? Math.max(options.debounceMs * 10, 10_000);
  let timer: NodeJS.Timeout | undefined;
  let burstStarted: number | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  let closed = false;

  const runSync = () => {
    timer = undefined;
    burstStarted = undefined;
    if (closed) return;
    inFlight = inFlight.then(() =>
      closed ? undefined : target.sync().catch((error: unknown) => options.onError?.(error)),
    );
  };
  const schedule = (event: string, path: string) => {
    if (closed) return;
    options.onChange?.(event, path);
    const now = Date.now();
    burstStarted ??= now;
    if (timer) clearTimeout(timer);
    timer = setTimeout(runSync, Math.min(options.debounceMs, burstStarted + maxWaitMs - now));
  };

  const extras = target.extraPaths.map((p) => resolve(workspace, p));
  const sessionsDir = target.sessionsDir;
  const indexDir = join(workspace, INDEX_DIR);
  const roots = new Set([workspace, ...extras, ...(sessionsDir ? [sessionsDir] : [])]);
  const ignored = (path: string, stats?: Stats) => {
    if (roots.has(path)) return false;
    if (isWithin(indexDir, path)) return true;
    const name = basename(path);
    if (name.startsWith(".") || name === "node_modules") return true;
    if (sessionsDir && isWithin(sessionsDir, path)) {
      // Transcripts only, directly in the folder (other agents' sub-folders stay out).
      if (relative(sessionsDir, path).includes(sep)) return true;
      return Boolean(stats?.isFile() && !isTranscriptName(name));
    }
    if (sessionsDir && isWithin(path, sessionsDir)) return false; // a folder leading to it
    if (stats?.isFile() && !name.toLowerCase().endsWith(".md")) return true;
    if (isWithin(workspace, path)) {
      // In the workspace only MEMORY.md, memory/ and extra paths (or folders leading to them) count.
      const top = relative(workspace, path).split(sep)[0];
      const related = extras.some((e) => isWithin(e, path) || isWithin(path, e));
      if (top !== MEMORY_DIR && top !== MEMORY_FILE && !related) return true;
    }
    return false;
  };

  // Folders whose identity (inode) is checked: replaced or re-created ones trigger a re-attach.
  const anchors = [...roots, join(workspace, MEMORY_DIR)];
  let seen = anchors.map(identity);
  // `.engram/` deleted or replaced (it is safe to delete): no file event says so, and the index
  // this process has open went with it. A sync reopens and rebuilds it.
  let seenIndex = identity(indexDir);

  // chokidar is loaded on first watch: one-shot commands never pay for it.
  const chokidar = import("chokidar");
  let current: Promise<FSWatcher> | undefined;
  let failures = 0;
  let reattachTimer: NodeJS.Timeout | undefined;
  // Each watcher's "ready", listened for from its creation: chokidar may be ready before a caller
  // (busy closing the previous watcher) gets to wait for it, and "ready" is emitted only once.
  const readiness = new WeakMap<FSWatcher, Promise<void>>();
  const whenReady = (watcher: FSWatcher) => readiness.get(watcher) ?? Promise.resolve();
  const attach = (): Promise<FSWatcher> =>
    chokidar.then(({ watch }) => {
      // Watch only roots that exist: chokidar does not notice a missing root being created.
      const existing = [...roots].filter((r) => identity(r) !== "missing");
      const watcher = watch(existing.length ? existing : [workspace], {
        ignoreInitial: true,
        followSymlinks: false,
        ignored,
      });
      readiness.set(watcher, new Promise((resolve) => watcher.once("ready", () => resolve())));
      for (const event of ["add", "change", "unlink", "addDir", "unlinkDir"] as const) {
        watcher.on(event, (path: string) => {
          failures = 0;
          schedule(event, path);
        });
      }
      watcher.on("error", (error) => {
        options.onError?.(error);
        reattachSoon(`file watcher error: ${(error as Error)?.message ?? String(error)}`);
      });
      return watcher;
    });
  // Re-attaches run one at a time, so no watcher is replaced before it was closed.
  let reattaching: Promise<void> = Promise.resolve();
  const reattach = (reason: string): Promise<void> => {
    const run = reattaching.then(async () => {
      if (closed) return;
      const previous = current;
      current = attach();
      await previous?.then((w) => w.close()).catch(() => undefined);
      await current.then(whenReady);
      if (closed) return;
      options.onReattach?.(reason);
      schedule("reattach", workspace); // catch up with what happened while detached
    });
    reattaching = run.catch(() => undefined); // a failed re-attach never blocks the next one
    return run;
  };
  const reattachSoon = (reason: string) => {
    if (closed || reattachTimer) return;
    const wait = Math.min(REATTACH_MIN_MS * 2 ** failures, REATTACH_MAX_MS);
    failures++;
    reattachTimer = setTimeout(() => {
      reattachTimer = undefined;
      reattach(reason).catch((error: unknown) => options.onError?.(error));
    }, wait);
  };

  current = attach();
  const ready = current.then(whenReady);

  const healthCheckMs = options.healthCheckMs ?? 2000;
  const health =
    healthCheckMs > 0
      ? setInterval(() => {
          const index = identity(indexDir);
          if (index !== seenIndex) {
            seenIndex = index;
            schedule("index", indexDir);
          }
          const now = anchors.map(identity);
          const moved = anchors.filter((_, i) => now[i] !== seen[i]);
          if (!moved.length) return;
          const workspaceMoved = seen[0] !== now[0];
          seen = now;
          if (workspaceMoved && now[0] === "missing") return; // wait for it to come back
          const what = moved.map((a) => relative(workspace, a) || "workspace").join(", ");
          reattach(`${what} deleted or replaced`)
            .then(() => {
              if (workspaceMoved && !closed) options.onWorkspaceReplaced?.();
            })
            .catch((error: unknown) => options.onError?.(error));
        }, healthCheckMs)
      : undefined;
  // Not unref'd: a running watcher keeps the process alive until closed. chokidar's own handles
  // cannot be relied on for that: a watched folder renamed away closes them, and a process with
  // nothing else to wait on would exit silently before noticing the folder came back.

  let rescanning = false;
  const rescan =
    options.rescanIntervalMs && options.rescanIntervalMs > 0
      ? setInterval(() => {
          if (timer || rescanning || closed) return;
          rescanning = true;
          (target.hasPending ? target.hasPending() : Promise.resolve(true))
            .then((changed) => {
              options.onRescan?.(changed);
              if (changed && !timer) runSync();
            })
            .catch((error: unknown) => options.onError?.(error))
            .finally(() => {
              rescanning = false;
            });
        }, options.rescanIntervalMs)
      : undefined;
  rescan?.unref();

  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (reattachTimer) clearTimeout(reattachTimer);
      if (health) clearInterval(health);
      if (rescan) clearInterval(rescan);
      await (await current)?.close();
      await inFlight;
    },
  };
}

/**
 * A folder's identity for replacement checks: device, inode and birth time (file systems reuse a
 * freed inode at once, so a folder deleted and created again often has the same inode), or
 * `missing`. Not the mtime or ctime: those move whenever a file inside is added.
 */
function identity(path: string): string {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st ? `${st.dev}:${st.ino}:${st.birthtimeMs}` : "missing";
  } catch {
    return "missing";
  }
}

function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
