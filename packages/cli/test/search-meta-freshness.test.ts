import { createMemory, type Embedder, type Memory, type StoreFactory } from "@engram/core";
import { lancedbStore } from "@engram/store-lancedb";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedProvider } from "./fixtures/scripted-provider.js";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * A search reads the index identity, the owed vectors and the last sync once per search (one
 * `getMetas` on LanceDB): whatever another process's sync changed since is what the next search
 * acts on. Two memories over one workspace stand in for two processes (say, `engram watch` and an
 * MCP server); both stores check for other writers on every read.
 */

const FAST = {
  retry: { retries: 1, minDelayMs: 1, maxDelayMs: 2 },
  circuit: { failureThreshold: 3, cooldownMs: 60_000, finalCooldownMs: 600_000 },
};

const STORES: Array<[string, () => StoreFactory]> = [
  ["sqlite", () => sqliteStore()],
  ["lancedb", () => lancedbStore()],
];

describe.each(STORES)(
  "a search on %s sees another process's identity and owed vectors",
  (_, store) => {
    let ws: string;
    const open: Memory[] = [];
    const memoryOf = async (embedder: Embedder) => {
      const memory = await createMemory({
        workspace: ws,
        store: store(),
        embedder,
        config: { embedding: FAST, sync: { batchChunks: 4 } },
      });
      open.push(memory);
      return memory;
    };
    beforeEach(async () => {
      ws = await tempDir();
      await writeFiles(ws, {
        "memory/notes/deploy.md": "# Deploy\n\nThe deploy window is Tuesday; 部署窗口在周二\n",
        "memory/notes/rollback.md": "# Rollback\n\nRollback plan lives in ops/rollback.md\n",
      });
    });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((m) => m.close()));
      await removeDir(ws);
    });

    it("owed vectors another process left, then paid, and a provider it switched to", async () => {
      const reader = await memoryOf(scriptedProvider("p"));
      await reader.sync();
      const before = await reader.search("deploy window");
      expect(before.degraded).toBe(false);
      expect(before.vectorsOwed ?? 0).toBe(0);

      // Another process writes a note while its provider is down: its vectors are owed.
      const provider = scriptedProvider("p");
      const writer = await memoryOf(provider);
      provider.fail("server");
      await writer.appendLongTerm("The quetzal migration blocker is the advisory lock timeout");
      expect((await writer.sync())?.embedding.pendingFiles).toBe(1);
      const owed = await reader.search("quetzal migration blocker");
      expect(owed.vectorsOwed).toBe(1);
      expect(owed.results[0]?.vectorOwed).toBe(true);

      // It pays them: this process's next search owes nothing.
      provider.heal();
      await writer.sync();
      const paid = await reader.search("quetzal migration blocker");
      expect(paid.vectorsOwed ?? 0).toBe(0);
      expect(paid.results[0]?.vectorOwed ?? false).toBe(false);
      expect(paid.degraded).toBe(false);

      // A third process rebuilds the index with another provider (48 dims): this one no longer
      // embeds queries with its own, whose vectors would not compare, and answers by keywords.
      const other = await memoryOf(scriptedProvider("q", { dims: 48 }));
      await other.sync();
      const switched = await reader.search("deploy window");
      expect(switched.degraded).toBe(true);
      expect(switched.degradedReason).toContain("q");
      expect(switched.results[0]?.path).toBe("memory/notes/deploy.md");
    });
  },
);
