import { appendFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryStatus } from "@engram/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  engram,
  eventually,
  removeDir,
  startWatchJson,
  stopChild,
  tempDir,
  type WatchChild,
  writeFiles,
} from "./helpers.js";

async function statusOf(ws: string): Promise<MemoryStatus> {
  const { stdout } = await engram(["status", "--json", "-w", ws]);
  return JSON.parse(stdout) as MemoryStatus;
}

async function finds(ws: string, query: string): Promise<string[]> {
  const { stdout } = await engram(["search", query, "--no-sync", "--json", "-w", ws]);
  return (JSON.parse(stdout).results as Array<{ path: string }>).map((r) => r.path);
}

/**
 * Issue 20, item 14: deleting `.engram/` (which the README calls safe to delete) while
 * `engram watch` ran left the index empty for good: the watcher kept writing to the unlinked
 * `index.sqlite` it had open and reported syncs, while `status` said 0 files and "last sync
 * never". The watcher now notices the index is gone, reopens it and rebuilds it.
 */
describe("engram watch when .engram/ is deleted", () => {
  let ws: string;
  let watch: WatchChild | undefined;
  afterEach(async () => {
    await stopChild(watch?.child);
    watch = undefined;
    await removeDir(ws);
  });

  for (const edit of [true, false]) {
    it(edit ? "rebuilds at the next edit" : "rebuilds without any edit", async () => {
      ws = await tempDir("engram-watch-index-");
      await writeFiles(ws, {
        "MEMORY.md": "# Memory\n\nquetzal is the codename\n",
        "memory/2026-11-20.md": "# 2026-11-20\n\n## 10:00\n\n部署窗口是周二\n",
      });
      watch = await startWatchJson(ws);
      expect((await statusOf(ws)).store.files).toBe(2);

      await rm(join(ws, ".engram"), { recursive: true, force: true });
      if (edit)
        await appendFile(join(ws, "memory/2026-11-20.md"), "\n## 11:00\n\nzebra crossing\n");
      const expected = edit ? ["memory/2026-11-20.md"] : [];
      const rebuilt = await eventually(
        async () => {
          const status = await statusOf(ws).catch(() => undefined);
          return status?.store.files === 2 && status.lastSync !== null;
        },
        20_000,
        250,
      );
      expect(rebuilt).toBe(true);
      const status = await statusOf(ws);
      expect(status.pending.changed).toBe(0);
      expect(status.watcher).toMatchObject({ state: "running" });
      expect(await finds(ws, "quetzal")).toEqual(["MEMORY.md"]);
      if (edit) expect(await finds(ws, "zebra")).toEqual(expected);
      expect(watch.events.filter((e) => e.event === "error")).toEqual([]);
    });
  }
});
