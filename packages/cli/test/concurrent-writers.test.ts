import { createMemory } from "@engram/core";
import { withWorkspaceLock } from "@engram/core/internal";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedProvider } from "./fixtures/scripted-provider.js";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * Writers in several processes (issue 20, item 16): an append whose sync was skipped because
 * another process held the sync lock must not be lost to the index, whether that other sync had
 * already read the file (it reads it again before letting go) or the writer closes first (close()
 * waits for the lock and indexes its own writes).
 */
describe("concurrent library writers", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    await writeFiles(ws, { "MEMORY.md": "# Memory\n" });
  });
  afterEach(() => removeDir(ws));

  it("a file written while a sync reads it is read again before that sync lets go of the lock", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const embedding = new Promise<void>((resolve) => {
      started = resolve;
    });
    const provider = scriptedProvider("p", {
      gate: async () => {
        started();
        await held;
      },
    });
    const a = await createMemory({ workspace: ws, store: sqliteStore(), embedder: provider });
    try {
      await writeFiles(ws, { "memory/notes/plan.md": "# Plan\n\nfirst line\n" });
      const sync = a.sync();
      await embedding; // A has read plan.md and is embedding it
      // Another writer (an editor, another agent) appends meanwhile.
      await writeFiles(ws, {
        "memory/notes/plan.md": "# Plan\n\nfirst line\nsecond line ocelot\n",
      });
      release();
      const report = await sync;
      expect(report?.updated).toBeGreaterThanOrEqual(1);
      const chunks = await a.store.getChunks("memory/notes/plan.md");
      expect(chunks.map((c) => c.text).join("\n")).toContain("second line ocelot");
    } finally {
      await a.close();
    }
  });

  it("close() indexes what this process wrote while another process held the sync lock", async () => {
    const b = await createMemory({ workspace: ws, store: sqliteStore() });
    let closing: Promise<void> | undefined;
    await withWorkspaceLock(ws, "sync", async () => {
      await b.appendDaily("the capybara review moved to Monday");
      expect(await b.sync({ wait: false })).toBeUndefined(); // the lock is held elsewhere
      closing = b.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    await closing;
    const reader = await createMemory({ workspace: ws, store: sqliteStore() });
    try {
      const hits = await reader.store.searchText(reader.analyzer.terms("capybara"), 5);
      expect(hits[0]?.chunk.text).toContain("capybara review");
    } finally {
      await reader.close();
    }
  });
});
