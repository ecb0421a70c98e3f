// The agent tools of @engram/core over a real SQLite index (core's own tests have no store).
import {
  createFlushPolicy,
  createMemory,
  createMemoryTools,
  fixedClock,
  type Memory,
  memorySearchTool,
} from "@engram/core";
import { createHashingEmbedder } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

const clock = fixedClock("2026-03-04T10:00:00");
const opened: { memory: Memory; dir: string }[] = [];
afterEach(async () => {
  for (const { memory, dir } of opened.splice(0)) {
    await memory.close();
    await removeDir(dir);
  }
});

async function open(embedder: boolean) {
  const dir = await tempDir("engram-tools-");
  await writeFiles(dir, {
    "MEMORY.md": "# Long-term Memory\n\n## 偏好\n\n用户喜欢简洁的中文回答。\n",
    "memory/archive/old-plan.md": "# Old plan\n\nThe rollback plan used blue-green deploys.\n",
  });
  const memory = await createMemory({
    workspace: dir,
    store: sqliteStore(),
    embedder: embedder ? createHashingEmbedder({ dims: 32 }) : null,
    readConfigFile: false,
    clock,
  });
  opened.push({ memory, dir });
  await memory.sync();
  return { memory, tools: createMemoryTools(memory) };
}

describe("memory tools on SQLite", () => {
  it("write → search (English and Chinese) → get, with provider, model and line ranges", async () => {
    const { tools } = await open(true);
    const written = await tools.call("memory_write", {
      text: "Decided the rollback plan: keep v1 warm for 24 hours.",
    });
    expect(written).toMatchObject({ path: "memory/2026-03-04.md", target: "daily", created: true });

    const found = await tools.call("memory_search", { query: "rollback plan", maxResults: 3 });
    expect(found.degraded).toBe(false);
    // What MCP clients receive as structuredContent matches the advertised outputSchema.
    expect(memorySearchTool.result["~standard"].validate(found)).toMatchObject({ value: found });
    expect(memorySearchTool.result["~standard"].validate(found)).not.toHaveProperty("issues");
    const top = found.results[0];
    expect(top).toMatchObject({
      path: "memory/2026-03-04.md",
      tier: "short",
      source: "memory",
      provider: "hashing",
      model: "hashing-32",
      fallback: false,
      degraded: false,
    });
    // The archive is searched only when asked for.
    expect(found.results.map((r) => r.path)).not.toContain("memory/archive/old-plan.md");
    const archived = await tools.call("memory_search", {
      query: "rollback plan",
      tiers: ["archive"],
    });
    expect(archived.results.map((r) => r.path)).toEqual(["memory/archive/old-plan.md"]);

    const zh = await tools.call("memory_search", { query: "简洁回答", sources: ["memory"] });
    expect(zh.results[0]).toMatchObject({ path: "MEMORY.md", startLine: expect.any(Number) });
    const lines = await tools.call("memory_get", {
      path: zh.results[0]?.path,
      from: zh.results[0]?.startLine,
      lines: (zh.results[0]?.endLine ?? 0) - (zh.results[0]?.startLine ?? 0) + 1,
    });
    expect(lines.text).toContain("用户喜欢简洁的中文回答。");
    expect(JSON.parse(JSON.stringify(found))).toEqual(found);
  });

  it("answers keyword-only searches as degraded when there is no provider", async () => {
    const { tools } = await open(false);
    const found = await tools.call("memory_search", { query: "中文回答", minScore: 0 });
    expect(found).toMatchObject({ degraded: true, mode: "keyword" });
    expect(found.results[0]).toMatchObject({ path: "MEMORY.md", degraded: true });
    expect(found.results[0]?.provider).toBeUndefined();
  });

  it("a flush's notes are searchable at once, and written once per cycle", async () => {
    const { memory } = await open(false);
    const flush = createFlushPolicy({ memory, contextWindow: 50_000, clock });
    expect(flush.threshold).toBe(26_000);
    const tools = flush.tools("s1", 1);
    await tools.call("memory_write", { text: "会话要点：发布定在周五" });
    expect(await tools.call("memory_write", { text: "会话要点：发布定在周五" })).toMatchObject({
      duplicate: true,
    });
    const found = await tools.call("memory_search", { query: "发布定在周五", minScore: 0 });
    expect(found.results.filter((r) => r.snippet.includes("发布定在周五"))).toHaveLength(1);
  });
});
