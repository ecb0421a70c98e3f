import type { ChildProcessByStdio } from "node:child_process";
import { appendFile, mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  engram,
  eventually,
  removeDir,
  startWatchJson,
  stopChild,
  tempDir,
  writeFiles,
} from "./helpers.js";

type Child = ChildProcessByStdio<null, Readable, Readable>;

/** Paths `engram search` finds for `query`, reading the index as it is (no sync first). */
async function found(ws: string, query: string): Promise<string[]> {
  const { stdout, code } = await engram([
    "search",
    query,
    "--no-sync",
    "--json",
    "--workspace",
    ws,
  ]);
  if (code !== 0) return [];
  return (JSON.parse(stdout).results as { path: string }[]).map((r) => r.path);
}

async function status(ws: string): Promise<string> {
  return (await engram(["status", "--workspace", ws])).stdout;
}

describe("engram watch: health and recovery", () => {
  let parent: string;
  let ws: string;
  let child: Child | undefined;
  beforeEach(async () => {
    parent = await tempDir();
    ws = join(parent, "ws");
    await engram(["init", "--workspace", ws]);
    await writeFiles(ws, { "memory/notes/first.md": "# First\n\nan okapi was seen\n" });
  });
  afterEach(async () => {
    await stopChild(child, "SIGKILL");
    child = undefined;
    await removeDir(parent);
  });

  it("recovers when memory/ or the whole workspace is deleted and created again", async () => {
    const watch = await startWatchJson(ws);
    child = watch.child;
    expect(await found(ws, "okapi")).toEqual(["memory/notes/first.md"]);

    const running = await status(ws);
    expect(running).toMatch(
      new RegExp(`Watcher\\s+running \\(pid ${child.pid}, up \\d+ s\\), last sync \\d+ s ago`),
    );
    expect(running).toMatch(/Last sync\s+\S+ \(\d+ s ago\)/);
    const json = JSON.parse((await engram(["status", "--json", "--workspace", ws])).stdout);
    expect(json.watcher).toMatchObject({ state: "running", heartbeat: { pid: child.pid } });
    expect(json.lastSyncAgeMs).toBeGreaterThanOrEqual(0);

    // memory/ removed and made again, then a new note: the watcher indexes it.
    await rm(join(ws, "memory"), { recursive: true });
    await mkdir(join(ws, "memory"));
    await writeFiles(ws, { "memory/again.md": "a quokka came back\n" });
    expect(await eventually(async () => (await found(ws, "quokka")).length === 1, 20_000)).toBe(
      true,
    );
    expect(await found(ws, "okapi")).toEqual([]);

    // The whole workspace replaced (its index with it): the watcher reopens it and indexes all.
    await rename(ws, join(parent, "old"));
    await writeFiles(ws, { "memory/fresh.md": "一只貘 (a tapir) arrived\n" });
    expect(
      await eventually(async () => watch.events.some((e) => e.event === "reopened"), 20_000),
    ).toBe(true);
    expect(await eventually(async () => (await found(ws, "tapir")).length === 1, 20_000)).toBe(
      true,
    );
    // …and keeps watching the new folder.
    await appendFile(join(ws, "memory/fresh.md"), "then a numbat\n");
    expect(await eventually(async () => (await found(ws, "numbat")).length === 1, 20_000)).toBe(
      true,
    );
    expect(await status(ws)).toMatch(new RegExp(`Watcher\\s+running \\(pid ${child.pid}`));

    // A clean stop removes the heartbeat.
    child.kill("SIGTERM");
    await new Promise((r) => child?.once("exit", r));
    expect(await status(ws)).toMatch(/Watcher\s+not running/);
  }, 120_000);

  it("reports a watcher killed without cleanup as stale (pid gone)", async () => {
    const watch = await startWatchJson(ws);
    child = watch.child;
    const pid = child.pid;
    child.kill("SIGKILL");
    await new Promise((r) => child?.once("exit", r));
    expect(await status(ws)).toMatch(new RegExp(`Watcher\\s+stale \\(pid ${pid} gone`));
    // Files changed while nobody watched are reported as pending.
    await appendFile(join(ws, "memory/notes/first.md"), "unseen edit\n");
    expect(await status(ws)).toMatch(/Pending\s+1 changed, 0 removed/);
  }, 60_000);
});
