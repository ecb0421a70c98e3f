import { type ChildProcessByStdio, spawn } from "node:child_process";
import { appendFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { createMemory, type Memory } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN, engram, eventually, removeDir, stopChild, tempDir, writeFiles } from "./helpers.js";

describe("engram watch", () => {
  let ws: string;
  let watcher: ChildProcessByStdio<null, Readable, Readable> | undefined;
  let reader: Memory | undefined;
  beforeEach(async () => {
    ws = await tempDir();
  });
  afterEach(async () => {
    await stopChild(watcher);
    await reader?.close();
    await removeDir(ws);
  });

  it("reflects edits, renames and deletes in search within seconds", async () => {
    await engram(["init", "--workspace", ws]);
    await writeFiles(ws, { "memory/notes/first.md": "# First\n\nan okapi was seen\n" });
    watcher = spawn(
      process.execPath,
      [BIN, "watch", "--json", "--debounce", "300", "--workspace", ws],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const events: Array<Record<string, unknown>> = [];
    watcher.stdout.on("data", (d: Buffer) => {
      for (const l of d.toString().split("\n").filter(Boolean)) events.push(JSON.parse(l));
    });
    expect(await eventually(async () => events.some((e) => e.event === "ready"))).toBe(true);

    // The test reads the index without syncing: only the watcher can have updated it.
    reader = await createMemory({ workspace: ws, store: sqliteStore() });
    const paths = async (q: string) => (await reader?.search(q))?.results.map((r) => r.path) ?? [];
    expect(await paths("okapi")).toEqual(["memory/notes/first.md"]);

    await appendFile(join(ws, "memory/notes/first.md"), "\nand later a quokka\n");
    expect(await eventually(async () => (await paths("quokka")).length === 1)).toBe(true);

    await rename(join(ws, "memory/notes/first.md"), join(ws, "memory/notes/renamed.md"));
    expect(
      await eventually(async () => (await paths("okapi")).join() === "memory/notes/renamed.md"),
    ).toBe(true);

    await writeFiles(ws, { "memory/new-folder/deep/new.md": "a fresh tapir note\n" });
    expect(await eventually(async () => (await paths("tapir")).length === 1)).toBe(true);

    await rm(join(ws, "memory/notes/renamed.md"));
    expect(await eventually(async () => (await paths("okapi")).length === 0)).toBe(true);

    expect(events.filter((e) => e.event === "sync").length).toBeGreaterThanOrEqual(4);
  });
});
