import {
  createMemory,
  type Embedder,
  type Memory,
  type MemoryStore,
  type StoreFactory,
} from "@engram/core";
import { memoryStore } from "@engram/store-memory";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedProvider } from "./fixtures/scripted-provider.js";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * What search finds while vectors are owed or being switched (issue 20, items 1, 2, 4, 5), on real
 * SQLite: a provider that fails must never make memory unfindable, a provider or model swap must
 * never empty the index, and a broken provider's NaN vectors never reach a store.
 */

const FAST = {
  retry: { retries: 1, minDelayMs: 1, maxDelayMs: 2 },
  circuit: { failureThreshold: 3, cooldownMs: 60_000, finalCooldownMs: 600_000 },
};

function notes(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`memory/notes/n${i}.md`] =
      `# Note ${i}\n\nTopic ${i}: deploy window ${i}, 部署窗口 ${i}\n`;
  }
  return files;
}

describe("vectors owed and switched", () => {
  let ws: string;
  const open: Memory[] = [];
  const memoryOf = async (
    embedder: Embedder | Embedder[] | null,
    config: Record<string, unknown> = {},
    store: () => MemoryStore | StoreFactory = () => sqliteStore(),
  ) => {
    const memory = await createMemory({
      workspace: ws,
      store: store(),
      embedder,
      config: { embedding: FAST, sync: { batchChunks: 4 }, ...config },
    });
    open.push(memory);
    return memory;
  };
  beforeEach(async () => {
    ws = await tempDir();
    await writeFiles(ws, notes(20));
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
    await removeDir(ws);
  });

  it("a fact whose vectors are owed is found by default hybrid search, and the response says so (item 1)", async () => {
    const provider = scriptedProvider("p");
    const memory = await memoryOf(provider);
    await memory.sync();
    provider.fail("server");
    await memory.appendDaily("Lin's quetzal migration blocker is the advisory lock timeout");
    const report = await memory.sync();
    expect(report?.embedding.pendingFiles).toBe(1);
    expect(report?.warnings.join("\n")).toContain("embedding stopped");
    provider.heal();

    const response = await memory.search("quetzal migration blocker");
    expect(response.degraded).toBe(false);
    expect(response.vectorsOwed).toBe(1);
    const hit = response.results[0];
    expect(hit?.snippet).toContain("quetzal migration blocker");
    expect(hit?.vectorOwed).toBe(true);
    // On the same 0–1 scale as the others: its keywords alone put it first.
    expect(hit?.score).toBeGreaterThan(0.35);
    // RRF too.
    expect((await memory.search("quetzal", { fusion: "rrf" })).results[0]?.vectorOwed).toBe(true);

    // The budget stops embedding the same way, with the same outcome.
    await memory.appendDaily("the ocelot retrospective moved to Thursday");
    await memory.sync({ maxTokens: 1 });
    const budgeted = await memory.search("ocelot retrospective");
    expect(budgeted.results[0]?.snippet).toContain("ocelot retrospective");
    expect(budgeted.vectorsOwed).toBe(1); // the same daily log
  });

  it("a provider swap keeps keyword and old-vector search answering until the new vectors are all there (item 2)", async () => {
    const before = await memoryOf(scriptedProvider("old", { dims: 16 }));
    await before.sync();
    expect(await before.store.stats()).toMatchObject({ chunks: 20, vectors: 20 });
    await before.close();

    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const next = scriptedProvider("new", {
      dims: 24,
      gate: async () => {
        if (++calls === 2) await held; // the second staging request waits for the test
      },
    });
    const switching = await memoryOf(next);
    // A reader in the same workspace that still has the old provider (another process, say).
    const reader = await memoryOf(scriptedProvider("old", { dims: 16 }));

    const searchesDuringRewrite: Array<Promise<number>> = [];
    const sync = switching.sync({
      onProgress: (p) => {
        if (p.phase === "index" && p.done === 10) {
          searchesDuringRewrite.push(
            reader.search("deploy window 17", { mode: "keyword" }).then((r) => r.results.length),
          );
        }
      },
    });
    while (calls < 2) await new Promise((r) => setTimeout(r, 5));
    // Staging: the new vectors are being paid for; the index still serves the old ones.
    const staging = await reader.search("deploy window 17");
    expect(staging.degraded).toBe(false);
    expect(staging.results[0]?.path).toBe("memory/notes/n17.md");
    expect(await reader.store.stats()).toMatchObject({ chunks: 20, vectors: 20 });
    release();

    const report = await sync;
    expect(report?.vectorSwitch).toMatchObject({
      from: "old/old-model/16",
      to: "new/new-model/24",
      staged: 20,
      total: 20,
      switched: true,
      keptKeywordIndex: true,
    });
    expect(report?.rebuilt).toBe(false);
    expect(next.texts).toBe(20); // each text embedded once: staged, then written from the cache
    expect(await Promise.all(searchesDuringRewrite)).toEqual([expect.any(Number)]);
    expect((await Promise.all(searchesDuringRewrite))[0]).toBeGreaterThan(0);
    expect(await switching.store.stats()).toMatchObject({ chunks: 20, vectors: 20 });
    expect((await switching.search("deploy window 17")).results[0]?.provider).toBe("new");
  });

  it("a swap whose new provider fails while staging leaves the old vectors in place", async () => {
    const before = await memoryOf(scriptedProvider("old", { dims: 16 }));
    await before.sync();
    await before.close();
    const broken = scriptedProvider("new", { dims: 24, failAfterCalls: 2 });
    const switching = await memoryOf(broken);
    const report = await switching.sync();
    expect(report?.vectorSwitch).toMatchObject({ switched: false, total: 20 });
    expect(report?.embedding.provider).toBe("old/old-model/16");
    expect(await switching.store.stats()).toMatchObject({ chunks: 20, vectors: 20 });
    const reader = await memoryOf(scriptedProvider("old", { dims: 16 }));
    expect((await reader.search("deploy window 3")).degraded).toBe(false);
  });

  it("status is degraded when no chunk has a vector, e.g. after a failed swap without a cache (item 5)", async () => {
    const before = await memoryOf(scriptedProvider("old", { dims: 16 }), {
      cache: { enabled: false },
    });
    await before.sync();
    await before.close();
    // The new provider answers the probe, then fails every batch.
    const broken = scriptedProvider("new", { dims: 24, failAfterCalls: 1 });
    const switching = await memoryOf(broken, { cache: { enabled: false } });
    const report = await switching.sync();
    expect(report?.embedding.pendingFiles).toBe(20);
    expect(await switching.store.stats()).toMatchObject({ chunks: 20, vectors: 0 });
    const status = await switching.status();
    expect(status.degraded).toBe(true);
    expect(status.degradedReason).toMatch(/no vectors|paused/);
    // Keyword search still finds everything meanwhile.
    const response = await switching.search("deploy window 9");
    expect(response.results[0]?.path).toBe("memory/notes/n9.md");
  });

  for (const [name, store] of [
    ["sqlite", () => sqliteStore()],
    ["memory", () => memoryStore()],
  ] as const) {
    it(`NaN and Infinity vectors are refused as bad_response before they reach the ${name} store (item 4)`, async () => {
      const broken = scriptedProvider("p", {
        corrupt: (vectors) =>
          vectors.map((v, i) => {
            const copy = Float32Array.from(v);
            copy[0] = i % 2 ? Number.NaN : Number.POSITIVE_INFINITY;
            return copy;
          }),
      });
      const memory = await memoryOf(broken, {}, store);
      const report = await memory.sync();
      expect(report?.embedding.stopped?.code).toBe("EMBEDDING_BAD_RESPONSE");
      expect(await memory.store.stats()).toMatchObject({ chunks: 20, vectors: 0 });
      const response = await memory.search("deploy window 4");
      expect(response.degraded).toBe(true);
      expect(response.degradedReason).toContain("not a finite number");
      expect(response.results[0]?.path).toBe("memory/notes/n4.md");
      expect(response.results.every((r) => Number.isFinite(r.score))).toBe(true);
    });
  }
});
