// The curation tools of @engram/core (memory_forget, memory_update, memory_consolidate) and the
// flush policy's session end, over a real SQLite index.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  createFlushPolicy,
  createMemory,
  createMemoryTools,
  fixedClock,
  type Memory,
} from "@engram/core";
import { createScriptedLanguageModel } from "@engram/core/testing";
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

async function open(config: Record<string, unknown> = {}) {
  const dir = await tempDir("engram-curation-");
  await writeFiles(dir, {
    "MEMORY.md":
      "# Long-term Memory\n\n## 偏好\n\n- 用户喜欢简洁的中文回答。\n- Lin prefers tea\n- lin prefers tea.\n",
    "memory/2026-03-03.md": "# 2026-03-03\n\n## 10:00\n\nThe wifi code is 4711 #important\n",
  });
  const memory = await createMemory({
    workspace: dir,
    store: sqliteStore(),
    readConfigFile: false,
    clock,
    config,
  });
  opened.push({ memory, dir });
  await memory.sync();
  return { memory, dir };
}

describe("curation tools", () => {
  it("are offered with titles and annotations, and never read-only or in group scope", async () => {
    const { memory } = await open();
    const names = (t: ReturnType<typeof createMemoryTools>) => t.definitions.map((d) => d.name);
    expect(names(createMemoryTools(memory))).toEqual([
      "memory_search",
      "memory_get",
      "memory_write",
      "memory_forget",
      "memory_update",
      "memory_consolidate",
    ]);
    expect(names(createMemoryTools(memory, { readOnly: true }))).toEqual([
      "memory_search",
      "memory_get",
    ]);
    const group = createMemoryTools(memory, { scope: "group" });
    expect(names(group)).not.toContain("memory_forget");
    await expect(group.call("memory_forget", { query: "tea" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: "memory_forget is not available in group scope",
    });
    await expect(
      createMemoryTools(memory, { readOnly: true }).call("memory_update", {
        target: "MEMORY.md:5",
        text: "x",
      }),
    ).rejects.toMatchObject({ message: "memory_update is not available to a read-only agent" });
    const forget = createMemoryTools(memory).definitions.find((d) => d.name === "memory_forget");
    expect(forget).toMatchObject({
      title: "Forget memory",
      annotations: { destructiveHint: true },
    });
  });

  it("forget and update change the file and the index at once", async () => {
    const { memory, dir } = await open();
    const tools = createMemoryTools(memory);
    const forgot = await tools.call("memory_forget", {
      query: "简洁的中文回答",
      reason: "changed",
    });
    expect(forgot.forgotten.map((f) => f.startLine)).toEqual([5]);
    const found = await tools.call("memory_search", { query: "简洁的中文回答" });
    expect(found.results.filter((r) => r.path === "MEMORY.md")).toEqual([]);
    const updated = await tools.call("memory_update", {
      target: "MEMORY.md:5",
      text: "Lin prefers green tea",
    });
    expect(updated).toMatchObject({ path: "MEMORY.md", startLine: 5, endLine: 5, dropped: [] });
    expect(await readFile(join(dir, "MEMORY.md"), "utf8")).toContain("- Lin prefers green tea\n");
    await expect(tools.call("memory_forget", {})).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(
      tools.call("memory_update", { target: "MEMORY.md#Nope", text: "x" }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });

  it("memory_consolidate plans with the memory's model or without one, and applies", async () => {
    const { memory, dir } = await open();
    const tools = createMemoryTools(memory);
    const plan = await tools.call("memory_consolidate", {});
    expect(plan).toMatchObject({ mode: "plan", by: "deterministic" });
    expect(plan.operations.map((o) => o.op)).toEqual(["MERGE", "ADD"]);
    const applied = await tools.call("memory_consolidate", { mode: "apply" });
    expect(applied.applyId).toBeTruthy();
    const text = await readFile(join(dir, "MEMORY.md"), "utf8");
    expect(text.match(/prefers tea/gi)).toHaveLength(1);
    expect(text).toContain("- The wifi code is 4711");

    // With a language model on the memory, the tool uses it (through core's chain).
    const model = createScriptedLanguageModel({ script: () => ({ value: { operations: [] } }) });
    const withLlm = await createMemory({
      workspace: dir,
      store: sqliteStore(),
      readConfigFile: false,
      clock,
      languageModel: model,
    });
    opened.push({ memory: withLlm, dir });
    await withLlm.appendDaily("Lin switched to coffee");
    const withModel = await createMemoryTools(withLlm).call("memory_consolidate", { mode: "plan" });
    expect(withModel.by).toBe("model");
    expect(model.requests).toHaveLength(1);
  });
});

describe("session end", () => {
  it("counts the session and, when asked, runs a session-end consolidation", async () => {
    const { memory, dir } = await open({
      maintenance: { onSessionEnd: true, gates: { minSessions: 2 } },
    });
    const flush = createFlushPolicy({ memory, contextWindow: 128_000, clock });
    expect(await flush.endSession("s1")).toMatchObject({ outcome: "skipped" });
    const run = await flush.endSession("s2");
    expect(run).toMatchObject({ outcome: "ok", trigger: "session-end" });
    expect(await readFile(join(dir, "MEMORY.md"), "utf8")).not.toContain("lin prefers tea.");
    expect((await memory.maintenanceStatus()).lastRun).toMatchObject({ outcome: "ok" });
  });
});
