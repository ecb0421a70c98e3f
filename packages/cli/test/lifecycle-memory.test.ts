import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createMemory, type Memory, promote, promotionCandidates } from "@engram/core";
import { readRecall } from "@engram/core/internal";
import { createHashingEmbedder } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/** The lifecycle through a real Memory on SQLite: vector dedupe, recall counting. */
describe("lifecycle with a Memory", () => {
  let ws: string;
  let memory: Memory | undefined;
  const now = new Date(2026, 0, 12, 10, 0);
  afterEach(async () => {
    await memory?.close();
    memory = undefined;
    await removeDir(ws);
  });

  it("dedupes by vectors when a provider is configured", async () => {
    ws = await tempDir("engram-lifecycle-mem-");
    memory = await createMemory({
      workspace: ws,
      store: sqliteStore(),
      embedder: createHashingEmbedder(),
      clock: { now: () => now },
    });
    // Before the first sync the index has no vectors: dedupe falls back to terms.
    expect((await promote(memory, "lunch is at noon", { now })).written).toBe(true);
    await memory.sync();
    const first = await promote(memory, "the release train leaves every tuesday morning", { now });
    expect(first.written).toBe(true);
    // Lexically below the (raised) term threshold, but close by vectors.
    const options = { now, threshold: 0.99, vectorThreshold: 0.6 };
    const second = await promote(memory, "the release train leaves every tuesday", options);
    expect(second).toMatchObject({
      written: false,
      duplicate: { method: "vector", path: "MEMORY.md" },
    });
    if (!second.written) expect(second.duplicate.similarity).toBeGreaterThanOrEqual(0.6);
    const unrelated = await promote(memory, "the blue room hosts the standup", options);
    expect(unrelated.written).toBe(true);
    const text = await readFile(join(ws, "MEMORY.md"), "utf8");
    expect(text.match(/release train/g)).toHaveLength(1);
  });

  it("counts search hits over distinct queries and reads, and turns them into candidates", async () => {
    ws = await tempDir("engram-lifecycle-mem-");
    await writeFiles(ws, {
      "memory/2026-01-11.md":
        "# 2026-01-11\n\n## 09:00\n\nthe staging database lives on db-7 ⭐\n\n## 10:00\n\n午饭吃了面条\n",
      "MEMORY.md": "# Long-term Memory\n\nthe production database lives on db-1\n",
    });
    memory = await createMemory({ workspace: ws, store: sqliteStore(), clock: { now: () => now } });
    await memory.sync();
    await memory.search("staging database");
    await memory.search("where is staging");
    await memory.search("staging database"); // repeated query: one distinct query
    await memory.get("memory/2026-01-11.md", { from: 5, lines: 1 });
    await memory.get("MEMORY.md");

    const { candidates } = await promotionCandidates(memory, { now });
    expect(candidates[0]).toMatchObject({ path: "memory/2026-01-11.md", importance: 1 });
    expect(candidates[0]?.text).toContain("db-7");
    expect(candidates[0]?.frequency).toBe(3);
    expect(candidates.every((c) => c.path !== "MEMORY.md")).toBe(true);
    // Queries are stored as hashes, never as text.
    const stored = JSON.stringify(await readRecall(ws));
    expect(stored).not.toContain("staging");
  });
});
