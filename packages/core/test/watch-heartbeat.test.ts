import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  readHeartbeat,
  removeHeartbeat,
  type WatchHeartbeat,
  watcherHealth,
  writeHeartbeat,
} from "../src/sync/heartbeat.js";
import { tempDir } from "./workspace/helpers.js";

const beat = (over: Partial<WatchHeartbeat> = {}): WatchHeartbeat => ({
  pid: process.pid,
  startedAt: "2026-01-02T10:00:00.000Z",
  beatAt: new Date().toISOString(),
  beatMs: 30_000,
  ...over,
});

/** A pid that surely belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("watch heartbeat", () => {
  it("round-trips through .engram/watch.json", async () => {
    const ws = await tempDir();
    expect(await readHeartbeat(ws)).toBeUndefined();
    const hb = beat({ lastError: { at: "2026-01-02T10:01:00.000Z", message: "磁盘已满" } });
    await writeHeartbeat(ws, hb);
    expect(await readHeartbeat(ws)).toEqual(hb);
    expect(JSON.parse(await readFile(path.join(ws, ".engram/watch.json"), "utf8")).pid).toBe(
      process.pid,
    );
  });

  it("judges running, not running, pid gone and silent", () => {
    const now = Date.now();
    expect(watcherHealth(undefined)).toEqual({ state: "not running" });
    expect(watcherHealth(beat(), now).state).toBe("running");
    expect(watcherHealth(beat({ pid: deadPid() }), now)).toMatchObject({
      state: "stale",
      reason: "pid gone",
    });
    const old = new Date(now - 91_000).toISOString();
    expect(watcherHealth(beat({ beatAt: old }), now)).toMatchObject({
      state: "stale",
      reason: "no heartbeat",
    });
    expect(watcherHealth(beat({ beatAt: "garbage" }), now).state).toBe("stale");
  });

  it("is removed on close only by the watcher that wrote it", async () => {
    const ws = await tempDir();
    const mine = beat();
    await writeHeartbeat(ws, beat({ startedAt: "2026-01-03T00:00:00.000Z" })); // a newer watcher
    await removeHeartbeat(ws, mine);
    expect(await readHeartbeat(ws)).toBeDefined();
    await writeHeartbeat(ws, mine);
    await removeHeartbeat(ws, mine);
    expect(await readHeartbeat(ws)).toBeUndefined();
  });
});
