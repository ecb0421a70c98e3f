import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";

/**
 * Who holds a workspace lock, written beside its folder (`<name>-<hash>.owner.json`) once it is
 * taken. A lock's folder only says when it was last refreshed; this says by whom, so a waiter can
 * tell a holder that died (take the lock over) from one that is alive but not running — stopped
 * with SIGSTOP or Ctrl-Z, or starved — whose lock must not be taken from under it.
 */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  since: string;
  /** Tells this holding apart from an earlier one of the same process. */
  token: string;
  /** The process's start time (Linux `/proc/<pid>/stat`), so a reused pid is not taken for it. */
  started?: string;
}

/** What a waiter can tell about a holder. */
export type HolderState =
  /** Running on this machine. */
  | "running"
  /** Alive on this machine but stopped (SIGSTOP, Ctrl-Z) or being traced. */
  | "stopped"
  /** Gone (or a zombie): its lock may be taken over. */
  | "dead"
  /** On another machine, or its record is missing or unreadable: only the lock's age can tell. */
  | "unknown";

/** The holder file of the lock folder `dir` (`….lock`). */
export function holderPath(dir: string): string {
  return `${dir.replace(/\.lock$/, "")}.owner.json`;
}

/** This process, as a holder record (a fresh token each call). */
export function thisProcess(): LockHolder {
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    token: randomBytes(6).toString("hex"),
  };
  const started = procStat(process.pid)?.started;
  if (started) holder.started = started;
  return holder;
}

/** Record this process as the holder of the lock folder `dir`; returns what was written. */
export async function writeHolder(dir: string): Promise<LockHolder> {
  const holder = thisProcess();
  const path = holderPath(dir);
  const tmp = `${path}.${holder.token}.tmp`;
  await writeFile(tmp, JSON.stringify(holder));
  await rename(tmp, path);
  return holder;
}

/** The recorded holder of `dir`, or null when there is none (or it cannot be read). */
export async function readHolder(dir: string): Promise<LockHolder | null> {
  try {
    const value = JSON.parse(await readFile(holderPath(dir), "utf8")) as Partial<LockHolder>;
    if (!Number.isInteger(value.pid) || typeof value.host !== "string") return null;
    return value as LockHolder;
  } catch {
    return null;
  }
}

/** Remove the holder record of `dir` if it is still `holder`'s (call before releasing the lock). */
export async function removeHolder(dir: string, holder: LockHolder): Promise<void> {
  const current = await readHolder(dir);
  if (current?.token !== holder.token) return;
  await unlink(holderPath(dir)).catch(() => {});
}

/** Whether `holder` is running, stopped, gone, or cannot be told from here. */
export function holderState(holder: LockHolder | null): HolderState {
  if (!holder || holder.host !== hostname()) return "unknown";
  if (holder.pid === process.pid) return "running";
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return "dead";
  }
  const stat = procStat(holder.pid);
  if (!stat) return "running"; // no /proc: the signal check above is all there is
  if (holder.started && stat.started !== holder.started) return "dead"; // the pid was reused
  if (stat.state === "Z" || stat.state === "X") return "dead";
  if (stat.state === "T" || stat.state === "t") return "stopped";
  return "running";
}

/** State letter and start time of a process from `/proc/<pid>/stat` (Linux), else undefined. */
function procStat(pid: number): { state: string; started: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) S ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Field 3 is the state, field 22 the start time (clock ticks after boot).
    return { state: fields[0] ?? "", started: fields[19] ?? "" };
  } catch {
    return undefined;
  }
}
