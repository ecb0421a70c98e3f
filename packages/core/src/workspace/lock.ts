import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import lockfile from "proper-lockfile";
import { EngramError } from "../errors.js";
import { assertWorkspace } from "./layout.js";
import { indexDir } from "./paths.js";

/** A lock whose holder stopped refreshing it for this long is presumed dead and taken over. */
export const LOCK_STALE_MS = 5_000;
/** How often a holder refreshes its lock's mtime (proper-lockfile `update`). */
const LOCK_UPDATE_MS = 1_000;
/** Default wait of {@link withWorkspaceLock}. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** Options of {@link withWorkspaceLock} and {@link tryWorkspaceLock}. */
export interface WorkspaceLockOptions {
  /** Longest wait before `LOCK_TIMEOUT` (default 10 s). Only {@link withWorkspaceLock} waits. */
  timeoutMs?: number;
  /**
   * Called when the lock is lost while held (its folder was removed, or the process stalled past
   * the stale threshold and another process took it over). Default: a process warning; the
   * running `fn` is not interrupted.
   */
  onCompromised?: (error: Error) => void;
}

/** Folder of a named lock: `<workspace>/.engram/locks/<readable-name>-<hash>.lock`. */
export function lockDirPath(ws: string, name: string): string {
  const readable = name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 10);
  return path.join(indexDir(ws), "locks", `${readable}-${hash}.lock`);
}

/**
 * Runs `fn` while holding the named workspace lock, which excludes every other holder of that name
 * in this process and in other processes. Waits (retrying with a short, jittered backoff) up to
 * `timeoutMs`. A lock left by a killed process is taken over once it is {@link LOCK_STALE_MS} old.
 *
 * @throws EngramError `LOCK_TIMEOUT` when the lock stays held for `timeoutMs`.
 * @throws EngramError `WORKSPACE_MISSING` when the workspace folder does not exist.
 */
export async function withWorkspaceLock<T>(
  workspace: string,
  name: string,
  fn: () => Promise<T>,
  opts: WorkspaceLockOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  // Join this process's queue synchronously, so callers are served in call order.
  const leave = await enterQueue(queueKey(workspace, name), deadline);
  if (!leave) throw timeout(name, path.resolve(workspace), timeoutMs);
  try {
    const ws = await assertWorkspace(workspace);
    const dir = lockDirPath(ws, name);
    let release: (() => Promise<void>) | null;
    for (let attempt = 0; ; attempt++) {
      release = await acquire(dir, opts.onCompromised ?? defaultOnCompromised(name));
      if (release) break;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw timeout(name, ws, timeoutMs);
      await sleep(Math.min(remaining, backoff(attempt)));
    }
    try {
      return await fn();
    } finally {
      await release();
    }
  } finally {
    leave();
  }
}

/**
 * Takes the named workspace lock only if it is free right now (in this process and in others).
 *
 * @returns a release function (safe to call more than once), or `null` when the lock is held.
 * @throws EngramError `WORKSPACE_MISSING` when the workspace folder does not exist.
 */
export async function tryWorkspaceLock(
  workspace: string,
  name: string,
  opts: Pick<WorkspaceLockOptions, "onCompromised"> = {},
): Promise<(() => Promise<void>) | null> {
  const key = queueKey(workspace, name);
  if (queues.has(key)) return null;
  const leave = await enterQueue(key, Date.now());
  if (!leave) return null;
  let release: (() => Promise<void>) | null;
  try {
    const dir = lockDirPath(await assertWorkspace(workspace), name);
    release = await acquire(dir, opts.onCompromised ?? defaultOnCompromised(name));
  } catch (error) {
    leave();
    throw error;
  }
  if (!release) {
    leave();
    return null;
  }
  const held = release;
  let done: Promise<void> | undefined;
  return () => {
    done ??= held().finally(leave);
    return done;
  };
}

// ---- cross-process: proper-lockfile ------------------------------------------------------------

/** One attempt: a release function, or `null` when another holder has it. */
async function acquire(
  dir: string,
  onCompromised: (error: Error) => void,
): Promise<(() => Promise<void>) | null> {
  let compromised = false;
  const options = {
    realpath: false,
    lockfilePath: dir,
    stale: LOCK_STALE_MS,
    update: LOCK_UPDATE_MS,
    retries: 0,
    onCompromised: (error: Error) => {
      compromised = true;
      onCompromised(error);
    },
  };
  // The locked "file" never exists; proper-lockfile only uses it as a key and mkdirs `dir`.
  const target = dir.slice(0, -".lock".length);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOCKED") return null;
    if (code !== "ENOENT") throw error;
    // `.engram/locks/` does not exist yet (or was deleted): create it and try once more.
    await mkdir(path.dirname(dir), { recursive: true });
    try {
      release = await lockfile.lock(target, options);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === "ELOCKED") return null;
      throw again;
    }
  }
  return async () => {
    try {
      await release();
    } catch (error) {
      // A compromised lock is already released as far as proper-lockfile is concerned.
      if (!compromised) throw error;
    }
  };
}

function defaultOnCompromised(name: string): (error: Error) => void {
  return (error) => {
    process.emitWarning(
      `engram lock "${name}" was compromised (${error.message}); another process may have taken it over`,
      { code: "ENGRAM_LOCK_COMPROMISED" },
    );
  };
}

function timeout(name: string, ws: string, timeoutMs: number): EngramError {
  return new EngramError(
    "LOCK_TIMEOUT",
    `lock "${name}" on ${ws} is held by another engram process (waited ${timeoutMs} ms)`,
    {
      hint: `wait for the other engram process to finish; a lock left by a crashed process is taken over after ${LOCK_STALE_MS / 1000} s`,
    },
  );
}

/** 5 ms, doubling to at most 50 ms, with ±50% jitter so waiting processes do not march in step. */
function backoff(attempt: number): number {
  const base = Math.min(50, 5 * 2 ** attempt);
  return base * (0.5 + Math.random());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- in-process: one promise queue per lock folder ---------------------------------------------

interface Queue {
  tail: Promise<void>;
  pending: number;
}

/** In-process queues, keyed by workspace as given (resolved, not realpath'd: that needs I/O) + name. */
const queues = new Map<string, Queue>();

function queueKey(workspace: string, name: string): string {
  return `${path.resolve(workspace)}\0${name}`;
}

/**
 * Waits for this process's earlier callers of the same lock. Resolves to a `leave` function, or to
 * `null` when `deadline` passed first (the abandoned slot is then skipped, never leaked).
 */
async function enterQueue(key: string, deadline: number): Promise<(() => void) | null> {
  let queue = queues.get(key);
  if (!queue) {
    queue = { tail: Promise.resolve(), pending: 0 };
    queues.set(key, queue);
  }
  const q = queue;
  const previous = q.tail;
  let open!: () => void;
  q.tail = new Promise<void>((resolve) => {
    open = resolve;
  });
  q.pending++;
  let left = false;
  const leave = (): void => {
    if (left) return;
    left = true;
    q.pending--;
    if (q.pending === 0 && queues.get(key) === q) queues.delete(key);
    open();
  };

  let timer: NodeJS.Timeout | undefined;
  const turn = await Promise.race([
    previous.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
    }),
  ]);
  clearTimeout(timer);
  if (turn) return leave;
  // Timed out: give our place back once it comes, so later callers are not blocked forever.
  void previous.then(leave);
  return null;
}
