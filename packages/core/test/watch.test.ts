import { appendFile, mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Watcher, type WatchOptions, watchWorkspace } from "../src/sync/watcher.js";
import { tempDir, writeFiles } from "./workspace/helpers.js";

/** Poll until `check` is true or the deadline passes. */
async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

let watchers: Watcher[] = [];
afterEach(async () => {
  await Promise.all(watchers.map((w) => w.close()));
  watchers = [];
});

/** A real chokidar watcher whose "sync" records which files exist when it runs. */
async function start(ws: string, options: Partial<WatchOptions> = {}, sessionsDir?: string) {
  const syncs: number[] = [];
  const events: string[] = [];
  const reattached: string[] = [];
  let replaced = 0;
  const watcher = watchWorkspace(
    { workspace: ws, extraPaths: [], sessionsDir, sync: async () => syncs.push(Date.now()) },
    {
      debounceMs: 100,
      healthCheckMs: 200,
      onChange: (event, p) => events.push(`${event} ${path.relative(ws, p)}`),
      onReattach: (reason) => reattached.push(reason),
      onWorkspaceReplaced: () => replaced++,
      ...options,
    },
  );
  watchers.push(watcher);
  await watcher.ready;
  return { syncs, events, reattached, replaced: () => replaced };
}

describe("watchWorkspace health", () => {
  it("memory/ deleted and created again: the next edit is still seen", async () => {
    const ws = await tempDir();
    await writeFiles(ws, { "memory/a.md": "a\n" });
    const w = await start(ws);
    await rm(path.join(ws, "memory"), { recursive: true });
    await mkdir(path.join(ws, "memory"));
    expect(await until(() => w.reattached.some((r) => r.includes("memory")))).toBe(true);
    const before = w.syncs.length;
    w.events.length = 0;
    await writeFiles(ws, { "memory/deep/新笔记.md": "回来了\n" });
    expect(await until(() => w.events.includes("add memory/deep/新笔记.md"))).toBe(true);
    expect(await until(() => w.syncs.length > before)).toBe(true);
    expect(w.replaced()).toBe(0);
  });

  it("the workspace folder deleted and created again: re-attached, reported, edits seen", async () => {
    const parent = await tempDir();
    const ws = path.join(parent, "ws");
    await writeFiles(ws, { "MEMORY.md": "# m\n", "memory/a.md": "a\n" });
    const w = await start(ws);
    // Moved away (like a sync tool replacing it), then a fresh folder in its place.
    await rename(ws, path.join(parent, "old"));
    await writeFiles(ws, { "memory/a.md": "a again\n" });
    expect(await until(() => w.replaced() === 1)).toBe(true);
    w.events.length = 0;
    await appendFile(path.join(ws, "memory/a.md"), "and an edit\n");
    expect(await until(() => w.events.includes("change memory/a.md"))).toBe(true);
    // Nothing from the old folder's new place is watched any more.
    w.events.length = 0;
    await appendFile(path.join(parent, "old/memory/a.md"), "ghost\n");
    await new Promise((r) => setTimeout(r, 400));
    expect(w.events).toEqual([]);
  });

  it("a workspace that is gone for a while is waited for, then re-attached", async () => {
    const parent = await tempDir();
    const ws = path.join(parent, "ws");
    await writeFiles(ws, { "memory/a.md": "a\n" });
    const w = await start(ws);
    await rm(ws, { recursive: true });
    await new Promise((r) => setTimeout(r, 600)); // several health checks see it missing
    expect(w.replaced()).toBe(0);
    await writeFiles(ws, { "memory/b.md": "b\n" });
    expect(await until(() => w.replaced() === 1)).toBe(true);
    w.events.length = 0;
    await writeFiles(ws, { "memory/c.md": "c\n" });
    expect(await until(() => w.events.includes("add memory/c.md"))).toBe(true);
  });
});

describe("watchWorkspace events", () => {
  it("transcripts in the sessions folder count; other agents' folders and other files do not", async () => {
    const ws = await tempDir();
    const sessions = path.join(ws, "sessions", "alpha");
    const w = await start(ws, {}, sessions);
    await writeFiles(ws, {
      "sessions/alpha/s1.jsonl": '{"role":"user","content":"hi"}\n',
      "sessions/alpha/notes.txt": "x",
      "sessions/beta/s2.jsonl": "{}\n",
      "sessions/top.jsonl": "{}\n",
      "other/x.md": "not memory\n",
    });
    expect(await until(() => w.events.includes("add sessions/alpha/s1.jsonl"))).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(w.events.filter((e) => e.startsWith("add ") && !e.endsWith("s1.jsonl"))).toEqual([]);
  });

  it("a steady stream of changes still syncs within maxWaitMs", async () => {
    const ws = await tempDir();
    await writeFiles(ws, { "memory/log.md": "" });
    const w = await start(ws, { debounceMs: 400, maxWaitMs: 800 });
    const started = Date.now();
    const writer = setInterval(() => appendFile(path.join(ws, "memory/log.md"), "x\n"), 100);
    try {
      expect(await until(() => w.syncs.length > 0, 5000)).toBe(true);
    } finally {
      clearInterval(writer);
    }
    // Events kept coming every 100 ms (< debounce): only maxWait can have fired it.
    expect((w.syncs[0] ?? 0) - started).toBeLessThan(3000);
  });

  it("the periodic re-scan syncs only when the stat-only check finds work", async () => {
    const ws = await tempDir();
    await mkdir(path.join(ws, "memory"));
    let pending = false;
    let checks = 0;
    let syncs = 0;
    const watcher = watchWorkspace(
      {
        workspace: ws,
        extraPaths: [],
        sync: async () => {
          syncs++;
          pending = false;
        },
        hasPending: async () => {
          checks++;
          return pending;
        },
      },
      { debounceMs: 50, rescanIntervalMs: 100, healthCheckMs: 0 },
    );
    watchers.push(watcher);
    await watcher.ready;
    expect(await until(() => checks >= 3)).toBe(true);
    expect(syncs).toBe(0);
    pending = true; // e.g. an event the OS dropped
    expect(await until(() => syncs === 1)).toBe(true);
  });
});
