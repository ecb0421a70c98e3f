import { createMemory, type Embedder, type Memory } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedProvider } from "./fixtures/scripted-provider.js";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

const FAST = {
  retry: { retries: 2, minDelayMs: 1, maxDelayMs: 2 },
  circuit: { failureThreshold: 3, cooldownMs: 60_000, finalCooldownMs: 600_000 },
};

function notes(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const day = String((i % 28) + 1).padStart(2, "0");
    files[`memory/notes/n${i}.md`] =
      `# Note ${i} ${day}\n\nTopic ${i}: deploy window ${i}, 部署窗口 ${i}\n`;
  }
  return files;
}

describe("embedding resilience (real SQLite)", () => {
  let ws: string;
  const open: Memory[] = [];
  const memoryOf = async (embedder: Embedder | Embedder[], config = {}) => {
    const memory = await createMemory({
      workspace: ws,
      store: sqliteStore(),
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

  it("re-syncing an unchanged workspace costs zero provider calls, and so does a rebuild", async () => {
    const provider = scriptedProvider("p");
    const memory = await memoryOf(provider);
    const cold = await memory.sync();
    expect(cold?.embedding).toMatchObject({ embedded: 20, cacheHits: 0, pendingFiles: 0 });
    const callsAfterCold = provider.calls;
    expect((await memory.sync())?.embedding.requests).toBe(0);
    const rebuilt = await memory.sync({ force: true });
    expect(rebuilt?.embedding).toMatchObject({ embedded: 0, cacheHits: 20, requests: 0 });
    expect(provider.calls).toBe(callsAfterCold);
  });

  it("a provider failing halfway leaves a consistent index that resumes without re-embedding", async () => {
    const provider = scriptedProvider("p", { failAfterCalls: 2 });
    const memory = await memoryOf(provider);
    const first = await memory.sync();
    // 2 good calls, then 1 attempt + 2 retries of the third: no further calls in this sync.
    expect(provider.calls).toBe(5);
    expect(first?.embedding.stopped?.code).toBe("EMBEDDING_SERVER");
    expect(first?.embedding.pendingFiles).toBe(12);
    let stats = await memory.store.stats();
    expect(stats).toMatchObject({ files: 20, chunks: 20, vectors: 8 });
    // Every file is keyword-searchable while its vectors are owed.
    expect((await memory.search("deploy window 17", { mode: "keyword" })).results[0]?.path).toBe(
      "memory/notes/n17.md",
    );
    expect((await memory.status()).vectorsPending).toBe(12);

    provider.heal();
    const textsBefore = provider.texts;
    const second = await memory.sync();
    expect(provider.texts - textsBefore).toBe(12);
    expect(second?.embedding).toMatchObject({ embedded: 12, pendingFiles: 0 });
    expect(second?.embedding.stopped).toBeUndefined();
    stats = await memory.store.stats();
    expect(stats).toMatchObject({ files: 20, chunks: 20, vectors: 20 });
    expect((await memory.status()).vectorsPending).toBe(0);
    expect((await memory.sync())?.embedding.requests).toBe(0);
  });

  it("a used-up quota is called once, never retried, and stays paused across processes", async () => {
    const provider = scriptedProvider("p");
    provider.fail("quota");
    const memory = await memoryOf(provider);
    const report = await memory.sync();
    expect(provider.calls).toBe(1);
    expect(report?.embedding.stopped?.code).toBe("EMBEDDING_QUOTA");
    expect((await memory.store.stats()).chunks).toBe(20);

    await writeFiles(ws, { "memory/notes/extra.md": "# Extra\n\nmore deploy notes\n" });
    await memory.sync();
    expect(provider.calls).toBe(1);
    const status = await memory.status();
    expect(status.providers[0]?.circuit).toMatchObject({
      state: "open",
      lastErrorCode: "EMBEDDING_QUOTA",
    });
    expect(status.vectorsPending).toBe(21);
    // The search still answers, from BM25, and says why.
    const response = await memory.search("deploy window");
    expect(response.degraded).toBe(true);
    expect(response.results.length).toBeGreaterThan(0);
    await memory.close();

    // Another process (a cron `engram sync`) sees the open circuit and does not call either.
    const again = await memoryOf(provider);
    await again.sync();
    expect(provider.calls).toBe(1);
  });

  it("falls back to the next provider, and results say who answered", async () => {
    const primary = scriptedProvider("primary");
    const backup = scriptedProvider("backup");
    primary.fail("auth");
    const memory = await memoryOf([primary, backup]);
    const report = await memory.sync();
    expect(primary.calls).toBe(1);
    expect(report?.embedding).toMatchObject({
      provider: "backup/backup-model/32",
      fallbackUsed: true,
      pendingFiles: 0,
    });
    expect((await memory.store.stats()).vectors).toBe(20);
    const response = await memory.search("deploy window 3");
    expect(response.degraded).toBe(false);
    expect(response.results[0]).toMatchObject({
      provider: "backup",
      model: "backup-model",
      fallback: true,
    });
    const status = await memory.status();
    expect(status.providers.map((p) => [p.identity.provider, p.primary, p.active])).toEqual([
      ["primary", true, false],
      ["backup", false, true],
    ]);
  });

  it("switches providers only after the fallback answers a probe", async () => {
    const primary = scriptedProvider("primary");
    const backup = scriptedProvider("backup");
    const memory = await memoryOf([primary, backup]);
    await memory.sync();
    expect((await memory.store.stats()).vectors).toBe(20);

    primary.fail("server");
    backup.fail("server");
    await writeFiles(ws, { "memory/notes/extra.md": "# Extra\n\nmore deploy notes\n" });
    const report = await memory.sync();
    // The primary's vectors are kept: the broken fallback never replaced them.
    expect(report?.rebuilt).toBe(false);
    expect(report?.embedding.provider).toBe("primary/primary-model/32");
    expect(await memory.store.stats()).toMatchObject({ files: 21, vectors: 20 });
    expect(report?.embedding.pendingFiles).toBe(1);
  });

  it("the token budget stops embedding cleanly; the next sync finishes without paying twice", async () => {
    const provider = scriptedProvider("p");
    const memory = await memoryOf(provider);
    const first = await memory.sync({ maxTokens: 60 });
    expect(first?.embedding.stopped?.code).toBe("EMBEDDING_BUDGET");
    expect(first?.embedding.tokens).toBeLessThanOrEqual(60);
    expect(first?.embedding.pendingFiles).toBeGreaterThan(0);
    expect((await memory.store.stats()).chunks).toBe(20);
    const second = await memory.sync();
    expect(provider.texts).toBe(20);
    expect(second?.embedding.pendingFiles).toBe(0);
    expect((await memory.store.stats()).vectors).toBe(20);
  });

  it("a query whose embedder is down answers from BM25 with degraded: true", async () => {
    const provider = scriptedProvider("p");
    const memory = await memoryOf(provider);
    await memory.sync();
    provider.fail("network");
    const response = await memory.search("deploy window 5");
    expect(response).toMatchObject({ degraded: true, mode: "keyword" });
    expect(response.degradedReason).toContain("scripted network");
    expect(response.results[0]?.path).toBe("memory/notes/n5.md");
  });

  it("a dry run counts what would be embedded without calling the provider or writing", async () => {
    const provider = scriptedProvider("p");
    const memory = await memoryOf(provider);
    const before = await memory.estimateSync();
    expect(before).toMatchObject({
      rebuildReasons: ["no index yet"],
      provider: "p/p-model/32",
      files: { index: 20, removed: 0, skipped: 0 },
      chunks: 20,
      cacheHits: 0,
      toEmbed: { chunks: 20 },
    });
    expect(before.toEmbed.tokens).toBeGreaterThan(100);
    expect(provider.calls).toBe(0);
    expect((await memory.store.stats()).chunks).toBe(0);

    const report = await memory.sync();
    expect(report?.embedding.tokens).toBe(before.toEmbed.tokens);
    expect((await memory.estimateSync()).toEmbed).toEqual({ chunks: 0, tokens: 0 });
    await writeFiles(ws, { "memory/notes/n1.md": "# Note 1\n\nrewritten entirely\n" });
    expect(await memory.estimateSync()).toMatchObject({
      files: { index: 1 },
      toEmbed: { chunks: 1 },
    });
  });
});
