import { createHash } from "node:crypto";
import { mkdir, rmdir, stat } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { assertWorkspace } from "./layout.js";
import {
  type HolderState,
  holderState,
  type LockHolder,
  readHolder,
  removeHolder,
  writeHolder,
} from "./lock-holder.js";
import { indexDir } from "./paths.js";

export { type HolderState, holderState, type LockHolder, thisProcess } from "./lock-holder.js";

/**
 * A lock not refreshed for this long is taken over, unless its holder is known to be alive on this
 * machine (running but starved, or stopped with SIGSTOP / Ctrl-Z): that one is waited for.
 */
export const LOCK_STALE_MS = 5_000;
/** How long a waiter waits before {@link WorkspaceLockOptions.onWait} is told. */
const WAIT_NOTICE_MS = 1_000;
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
  /**
   * Called once when the lock has been held by another process for a second or more, with what
   * is known of that process, so a caller can say what it is waiting for. Only
   * {@link withWorkspaceLock} waits.
   */
  onWait?: (wait: LockWait) => void;
}

/** Who a waiter is waiting for. */
export interface LockWait {
  /** The lock's name (`sync`, `lifecycle`, …). */
  name: string;
  /** The holding process, when it recorded itself (engram ≥ this version does). */
  holder: LockHolder | null;
  state: HolderState;
  /** How long the waiter will wait in all (ms). */
  timeoutMs: number;
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
  const started = Date.now();
  const deadline = started + timeoutMs;
  // Join this process's queue synchronously, so callers are served in call order.
  const leave = await enterQueue(queueKey(workspace, name), deadline);
  if (!leave) throw timeout(name, path.resolve(workspace), timeoutMs, null);
  try {
    const ws = await assertWorkspace(workspace);
    const dir = lockDirPath(ws, name);
    let release: (() => Promise<void>) | undefined;
    let told = false;
    for (let attempt = 0; ; attempt++) {
      const got = await acquire(dir, opts.onCompromised ?? defaultOnCompromised(name));
      if (got.release) {
        release = got.release;
        break;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw timeout(name, ws, timeoutMs, await describeHolder(dir));
      if (!told && opts.onWait && Date.now() - started >= WAIT_NOTICE_MS) {
        told = true;
        const { holder, state } = await describeHolder(dir);
        opts.onWait({ name, holder, state, timeoutMs });
      }
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
  let release: (() => Promise<void>) | undefined;
  try {
    const dir = lockDirPath(await assertWorkspace(workspace), name);
    release = (await acquire(dir, opts.onCompromised ?? defaultOnCompromised(name))).release;
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

/**
 * proper-lockfile (and the graceful-fs it patches `fs` with), loaded by the first lock: ~10 ms of
 * a process's start, which a process that only searches never needs.
 */
let properLockfile: Promise<typeof import("proper-lockfile")> | undefined;
async function lockFile(file: string, options: import("proper-lockfile").LockOptions) {
  properLockfile ??= import("proper-lockfile");
  return (await properLockfile).lock(file, options);
}

/**
 * proper-lockfile's own stale age, set out of reach: engram decides when a lock is stale itself
 * ({@link takeOverIfAbandoned}), since proper-lockfile cannot tell a stopped holder from a dead one.
 */
const NEVER_STALE_MS = 2 ** 31;

/**
 * One attempt: a release function, or nothing when another holder has it. A lock that was not
 * refreshed for {@link LOCK_STALE_MS} is taken over only when its recorded holder is gone or
 * cannot be checked from here: a live holder on this machine keeps it.
 */
async function acquire(
  dir: string,
  onCompromised: (error: Error) => void,
): Promise<{ release?: () => Promise<void> }> {
  if (!(await takeOverIfAbandoned(dir))) return {};
  let compromised = false;
  const options = {
    realpath: false,
    lockfilePath: dir,
    stale: NEVER_STALE_MS,
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
    release = await lockFile(target, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOCKED") return {};
    if (code !== "ENOENT") throw error;
    // `.engram/locks/` does not exist yet (or was deleted): create it and try once more.
    await mkdir(path.dirname(dir), { recursive: true });
    try {
      release = await lockFile(target, options);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === "ELOCKED") return {};
      throw again;
    }
  }
  // Who holds it, for waiters; a record that cannot be written only costs them the liveness check.
  const holder = await writeHolder(dir).catch(() => null);
  return {
    release: async () => {
      if (holder) await removeHolder(dir, holder);
      try {
        await release();
      } catch (error) {
        // A compromised lock is already released as far as proper-lockfile is concerned.
        if (!compromised) throw error;
      }
    },
  };
}

/**
 * Remove the lock folder `dir` when it is past the stale age and its holder is not alive on this
 * machine (dead, or unknown: on another machine, or from an engram that did not record itself).
 * Returns false when a live holder keeps it. Another waiter may remove the same folder at the same
 * moment; the folder is checked to be the one found stale just before, as proper-lockfile does.
 */
async function takeOverIfAbandoned(dir: string): Promise<boolean> {
  const info = await stat(dir).catch(() => null);
  if (!info || info.mtimeMs >= Date.now() - LOCK_STALE_MS) return true;
  const state = holderState(await readHolder(dir));
  if (state === "running" || state === "stopped") return false;
  const again = await stat(dir).catch(() => null);
  if (again && again.ino === info.ino && again.mtimeMs === info.mtimeMs) {
    await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
  return true;
}

async function describeHolder(
  dir: string,
): Promise<{ holder: LockHolder | null; state: HolderState }> {
  const holder = await readHolder(dir);
  return { holder, state: holderState(holder) };
}

/**
 * The default when a held lock is lost: a process warning with code `ENGRAM_LOCK_COMPROMISED`
 * (the `engram` command prints those as its own one-line warnings).
 */
function defaultOnCompromised(name: string): (error: Error) => void {
  return (error) => {
    const why =
      (error as NodeJS.ErrnoException).syscall !== undefined
        ? "its lock folder was removed"
        : `it was not refreshed for ${LOCK_STALE_MS / 1000} s (was this process paused?)`;
    process.emitWarning(
      `this process lost the "${name}" lock while holding it: ${why}; another engram process may be doing the same work, which is safe, and the index follows the files at the next sync`,
      { code: "ENGRAM_LOCK_COMPROMISED" },
    );
  };
}

function timeout(
  name: string,
  ws: string,
  timeoutMs: number,
  held: { holder: LockHolder | null; state: HolderState } | null,
): EngramError {
  const pid = held?.holder?.pid;
  const who =
    pid === undefined
      ? "another engram process"
      : `engram process ${pid}${held?.state === "stopped" ? " (stopped)" : ""}`;
  const hint =
    held?.state === "stopped"
      ? `process ${pid} is stopped: resume it (\`kill -CONT ${pid}\` or \`fg\`) or end it, then retry`
      : `wait for ${who} to finish and retry; a lock left by a process that died is taken over after ${LOCK_STALE_MS / 1000} s`;
  return new EngramError(
    "LOCK_TIMEOUT",
    `lock "${name}" on ${ws} is held by ${who} (waited ${Math.round(timeoutMs / 1000)} s)`,
    { hint },
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
