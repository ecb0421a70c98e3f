import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../workspace/atomic.js";
import { INDEX_DIR } from "../workspace/layout.js";

/** File (in `.engram/`) where a running watcher reports on itself. */
export const WATCH_HEARTBEAT_FILE = "watch.json";

/** What a running watcher writes to `.engram/watch.json`. Times are ISO 8601. */
export interface WatchHeartbeat {
  pid: number;
  startedAt: string;
  /** Last time the watcher wrote this file; it does so at least every `beatMs`. */
  beatAt: string;
  /** How often the watcher refreshes `beatAt`. */
  beatMs: number;
  /** Last file event seen. */
  lastEventAt?: string;
  /** Last sync the watcher ran (successfully). */
  lastSyncAt?: string;
  /** Last periodic re-scan check. */
  lastRescanAt?: string;
  /** Last time the file watcher was re-attached, and why. */
  lastReattach?: { at: string; reason: string };
  /** Last failure (a sync or the file watcher), kept until a later sync succeeds. */
  lastError?: { at: string; message: string };
}

/** A watcher's health as `engram status` reports it. */
export type WatcherHealth =
  | { state: "not running" }
  | { state: "running"; heartbeat: WatchHeartbeat }
  | { state: "stale"; reason: "pid gone" | "no heartbeat"; heartbeat: WatchHeartbeat };

function heartbeatPath(workspace: string): string {
  return join(workspace, INDEX_DIR, WATCH_HEARTBEAT_FILE);
}

/** Write the heartbeat (atomically: a reader never sees half a file). */
export async function writeHeartbeat(workspace: string, heartbeat: WatchHeartbeat): Promise<void> {
  await writeFileAtomic(heartbeatPath(workspace), `${JSON.stringify(heartbeat, null, 2)}\n`);
}

/** The heartbeat file, or undefined when there is none or it is unreadable. */
export async function readHeartbeat(workspace: string): Promise<WatchHeartbeat | undefined> {
  try {
    const value = JSON.parse(await readFile(heartbeatPath(workspace), "utf8"));
    return typeof value?.pid === "number" && typeof value.beatAt === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Remove the heartbeat if it is still the one this watcher wrote (same pid and start). */
export async function removeHeartbeat(workspace: string, mine: WatchHeartbeat): Promise<void> {
  const found = await readHeartbeat(workspace);
  if (found && found.pid === mine.pid && found.startedAt === mine.startedAt) {
    await rm(heartbeatPath(workspace), { force: true });
  }
}

/**
 * Judge a heartbeat: `running` when its process is alive and it beat within 3 × `beatMs`;
 * `stale` when the process is gone (killed without cleaning up) or alive but silent.
 */
export function watcherHealth(
  heartbeat: WatchHeartbeat | undefined,
  now: number = Date.now(),
): WatcherHealth {
  if (!heartbeat) return { state: "not running" };
  if (!isAlive(heartbeat.pid)) return { state: "stale", reason: "pid gone", heartbeat };
  const silentFor = now - Date.parse(heartbeat.beatAt);
  if (!(silentFor <= 3 * heartbeat.beatMs)) {
    return { state: "stale", reason: "no heartbeat", heartbeat };
  }
  return { state: "running", heartbeat };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, someone else's
  }
}
