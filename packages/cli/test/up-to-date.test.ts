import { appendFile, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createMemory, type Embedder, type Memory } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedProvider } from "./fixtures/scripted-provider.js";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * `Memory.upToDate()` says a sync would change nothing, read-only, so a one-shot search can skip
 * the sync (its lock and its write). Each case here checks the answer against what the sync then
 * does: true only when the sync finds nothing to do, false whenever it has something to do.
 */

const FAST = {
  retry: { retries: 1, minDelayMs: 1, maxDelayMs: 2 },
  circuit: { failureThreshold: 3, cooldownMs: 60_000, finalCooldownMs: 600_000 },
};

describe("Memory.upToDate (SQLite)", () => {
  let ws: string;
  const open: Memory[] = [];
  const memoryOf = async (embedder: Embedder | null = null) => {
    const memory = await createMemory({
      workspace: ws,
      store: sqliteStore(),
      embedder,
      config: { embedding: FAST },
    });
    open.push(memory);
    return memory;
  };
  /** The sync after `upToDate()` answered: did it find anything to do? */
  const syncDidSomething = async (memory: Memory) => {
    const report = await memory.sync();
    if (!report) throw new Error("the sync did not run");
    return (
      report.rebuilt ||
      report.added + report.updated + report.touched + report.removed > 0 ||
      report.embedding.pendingFiles > 0
    );
  };

  beforeEach(async () => {
    ws = await tempDir("engram-up-to-date-");
    await writeFiles(ws, {
      "MEMORY.md": "# Memory\n\n- 偏好：先给结论\n",
      "memory/notes/deploy.md": "# Deploy\n\nThe deploy window is Tuesday; 部署窗口在周二\n",
    });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
    await removeDir(ws);
  });

  it("is false before the first sync and true after it, without writing", async () => {
    const memory = await memoryOf();
    expect(await memory.upToDate()).toBe(false);
    expect(await syncDidSomething(memory)).toBe(true);
    const before = (await memory.status()).lastSync?.finishedAt;
    expect(await memory.upToDate()).toBe(true);
    expect((await memory.status()).lastSync?.finishedAt).toBe(before);
    expect(await syncDidSomething(memory)).toBe(false);
  });

  it("is false after a file is edited, added, touched or removed", async () => {
    const memory = await memoryOf();
    await memory.sync();
    const edits: Array<[string, () => Promise<void>]> = [
      ["edited", () => appendFile(join(ws, "memory/notes/deploy.md"), "Freeze on Fridays.\n")],
      ["added", () => writeFile(join(ws, "memory/notes/new.md"), "# New\n\nA new note\n")],
      ["touched", () => utimes(join(ws, "MEMORY.md"), new Date(), new Date(Date.now() + 5_000))],
      ["removed", () => rm(join(ws, "memory/notes/new.md"))],
    ];
    for (const [what, edit] of edits) {
      await edit();
      expect(await memory.upToDate(), what).toBe(false);
      expect(await syncDidSomething(memory), what).toBe(true);
      expect(await memory.upToDate(), `${what}, synced`).toBe(true);
    }
  });

  it("is false while this process's own writes wait to be indexed", async () => {
    const memory = await memoryOf();
    await memory.sync();
    await memory.appendDaily("Rollback drill passed in 3m40s", { date: "2026-12-07" });
    expect(await memory.upToDate()).toBe(false);
    await memory.sync();
    expect(await memory.upToDate()).toBe(true);
  });

  it("follows the provider: a rebuild due, vectors owed, an index kept for a missing one", async () => {
    const provider = scriptedProvider("p");
    const memory = await memoryOf(provider);
    await memory.sync();
    expect(await memory.upToDate()).toBe(true);

    // Another provider named for this workspace: its vectors would replace the index's.
    const other = await memoryOf(scriptedProvider("q", { dims: 48 }));
    expect(await other.upToDate()).toBe(false);

    // Vectors owed: a note written while the provider is down.
    provider.fail("server");
    await appendFile(join(ws, "MEMORY.md"), "- The quetzal blocker is the advisory lock timeout\n");
    expect(await syncDidSomething(memory)).toBe(true);
    expect(await memory.upToDate()).toBe(false);
    provider.heal();
    const paid = await memory.sync();
    expect(paid?.embedding.pendingFiles).toBe(0);
    expect(await memory.upToDate()).toBe(true);

    // A process without the index's provider keeps its vectors: nothing to do there either.
    const keywordOnly = await memoryOf(null);
    expect(await keywordOnly.upToDate()).toBe(true);
  });
});
