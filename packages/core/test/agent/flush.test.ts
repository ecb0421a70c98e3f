import { spawn } from "node:child_process";
import { chmod, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createFlushPolicy, isNoReply } from "../../src/agent/index.js";
import { resolveConfig } from "../../src/config/load.js";
import { EngramError } from "../../src/errors.js";
import { fixedClock } from "../../src/workspace/clock.js";
import { tempDir, writeFiles } from "../workspace/helpers.js";
import { fileMemory } from "./host.js";

const clock = fixedClock("2026-03-04T10:00:00");
const TODAY = "memory/2026-03-04.md";

async function setup(options: { contextWindow?: number; readOnly?: boolean } = {}) {
  const ws = await tempDir("engram-flush-");
  const memory = fileMemory(ws, clock);
  const policy = createFlushPolicy({ memory, contextWindow: 100_000, clock, ...options });
  return { ws, memory, policy };
}

describe("flush threshold", () => {
  it("fires at contextWindow − reserveTokensFloor − softThresholdTokens (defaults 20,000 / 4,000)", async () => {
    const { policy } = await setup();
    expect(policy.threshold).toBe(76_000);
    expect(await policy.shouldFlush("s1", 75_999, 0)).toMatchObject({
      flush: false,
      reason: "below-threshold",
      threshold: 76_000,
    });
    expect(await policy.shouldFlush("s1", 76_000, 0)).toMatchObject({ flush: true, reason: "due" });
  });

  it("takes the config's flush section, and options over it", async () => {
    const ws = await tempDir("engram-flush-");
    const config = resolveConfig({ flush: { reserveTokensFloor: 1000, softThresholdTokens: 500 } });
    expect(resolveConfig({}).flush).toEqual({
      enabled: true,
      reserveTokensFloor: 20_000,
      softThresholdTokens: 4_000,
    });
    const memory = fileMemory(ws, clock, config.flush);
    expect(createFlushPolicy({ memory, contextWindow: 10_000 }).threshold).toBe(8_500);
    expect(
      createFlushPolicy({ memory, contextWindow: 10_000, softThresholdTokens: 0 }).threshold,
    ).toBe(9_000);
    const off = createFlushPolicy({
      memory: fileMemory(ws, clock, { enabled: false }),
      contextWindow: 100_000,
    });
    expect(await off.shouldFlush("s", 99_999, 0)).toMatchObject({
      flush: false,
      reason: "disabled",
    });
  });

  it("refuses figures that leave no room, naming them", async () => {
    const ws = await tempDir("engram-flush-");
    const memory = fileMemory(ws, clock);
    expect(() => createFlushPolicy({ memory, contextWindow: 24_000 })).toThrow(
      /contextWindow 24000/,
    );
    expect(() => createFlushPolicy({ memory, contextWindow: 8_000.5 })).toThrow(EngramError);
    const { policy } = await setup();
    await expect(policy.shouldFlush("", 1, 0)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(policy.shouldFlush("s", -1, 0)).rejects.toThrow(/tokenEstimate/);
  });
});

describe("once per compaction cycle, on disk", () => {
  it("flushes once per cycle per session, and again in the next cycle", async () => {
    const { ws, memory, policy } = await setup();
    expect((await policy.shouldFlush("a", 80_000, 1)).flush).toBe(true);
    expect(await policy.recordFlush("a", 1)).toBe(true);
    expect(await policy.recordFlush("a", 1)).toBe(false);
    expect(await policy.shouldFlush("a", 90_000, 1)).toMatchObject({
      flush: false,
      reason: "already-flushed",
    });
    // Another session is independent; the next cycle flushes again.
    expect((await policy.shouldFlush("b", 80_000, 1)).flush).toBe(true);
    expect((await policy.shouldFlush("a", 80_000, 2)).flush).toBe(true);

    // A new policy object (a restarted process) reads the same state file.
    const again = createFlushPolicy({ memory, contextWindow: 100_000, clock });
    expect((await again.shouldFlush("a", 80_000, 1)).reason).toBe("already-flushed");
    const saved = JSON.parse(await readFile(path.join(ws, ".engram/sessions.json"), "utf8"));
    expect(saved.sessions.a.flush.flushed).toEqual({ cycle: 1, at: clock.now().toISOString() });
  });

  it("survives a real process restart and concurrent processes", async () => {
    const { ws, policy } = await setup();
    const results = await Promise.all([runWorker(ws, "会话-1", 3), runWorker(ws, "session-2", 3)]);
    expect(results.map((r) => r.recorded)).toEqual([true, true]);
    for (const id of ["会话-1", "session-2"]) {
      expect((await policy.shouldFlush(id, 80_000, 3)).reason).toBe("already-flushed");
      expect((await policy.shouldFlush(id, 80_000, 4)).reason).toBe("due");
    }
    const log = await readFile(path.join(ws, TODAY), "utf8");
    expect(log).toContain("来自进程 会话-1 的笔记");
    expect(log).toContain("来自进程 session-2 的笔记");
  });

  it("keeps a custom state file where it is told", async () => {
    const ws = await tempDir("engram-flush-");
    const policy = createFlushPolicy({
      memory: fileMemory(ws, clock),
      contextWindow: 100_000,
      stateFile: "state/flush.json",
    });
    await policy.recordFlush("s", 0);
    expect(JSON.parse(await readFile(path.join(ws, "state/flush.json"), "utf8")).version).toBe(1);
  });

  it("treats a damaged state file as empty instead of failing the agent", async () => {
    const { ws, policy } = await setup();
    await writeFiles(ws, { ".engram/sessions.json": "{ not json" });
    expect((await policy.shouldFlush("s", 80_000, 0)).flush).toBe(true);
    expect(await policy.recordFlush("s", 0)).toBe(true);
    expect((await policy.shouldFlush("s", 80_000, 0)).reason).toBe("already-flushed");
  });
});

describe("read-only workspace", () => {
  it("skips the flush when the agent has read-only access", async () => {
    const { policy } = await setup({ readOnly: true });
    expect(await policy.shouldFlush("s", 99_000, 0)).toMatchObject({
      flush: false,
      reason: "read-only",
    });
  });

  it.skipIf(process.getuid?.() === 0)(
    `skips the flush when the folder is not writable${
      process.getuid?.() === 0 ? " (SKIPPED: root can write to a read-only folder)" : ""
    }`,
    async () => {
      const { ws, policy } = await setup();
      await chmod(ws, 0o555);
      try {
        expect((await policy.shouldFlush("s", 99_000, 0)).reason).toBe("read-only");
      } finally {
        await chmod(ws, 0o755);
      }
    },
  );
});

describe("prompts and NO_REPLY", () => {
  it("names today's log in the user prompt and keeps the NO_REPLY convention", async () => {
    const { policy } = await setup();
    expect(policy.userPrompt()).toContain(TODAY);
    expect(policy.userPrompt()).toContain("NO_REPLY");
    expect(policy.systemPrompt).toMatch(/compaction/);
    const ws = await tempDir("engram-flush-");
    const custom = createFlushPolicy({
      memory: fileMemory(ws, clock, {
        userPrompt: "把笔记写进 memory/YYYY-MM-DD.md，否则回复 NO_REPLY",
      }),
      contextWindow: 100_000,
      clock,
    });
    expect(custom.userPrompt()).toBe(`把笔记写进 ${TODAY}，否则回复 NO_REPLY`);
  });

  it("detects a bare NO_REPLY answer and nothing else", () => {
    for (const yes of [
      "NO_REPLY",
      "  NO_REPLY\n",
      "`NO_REPLY`",
      "**NO_REPLY**",
      "NO_REPLY.",
      '"NO_REPLY"',
    ]) {
      expect(isNoReply(yes)).toBe(true);
    }
    for (const no of [
      "",
      "no_reply",
      "Saved two notes. NO_REPLY",
      "NO_REPLY_PLEASE",
      undefined,
      42,
    ]) {
      expect(isNoReply(no)).toBe(false);
    }
  });
});

describe("what a flush writes", () => {
  it("appends even when the model asks to overwrite today's log", async () => {
    const { ws, policy } = await setup();
    await writeFiles(ws, { [TODAY]: "# 2026-03-04\n\n## 09:00\n\n用户偏好：深色主题\n\n" });
    const tools = policy.tools("s", 1);
    // Asking for an overwrite mode is refused outright: nothing is written.
    await expect(
      tools.call("memory_write", { text: "(empty)", target: TODAY, mode: "overwrite" }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining('"mode"'),
    });
    // Text that "replaces" the log, aimed at the log's path, is still an append.
    const result = await tools.call("memory_write", {
      text: "# 2026-03-04\n\nREPLACE THE WHOLE FILE WITH THIS",
      target: TODAY,
    });
    expect(result).toMatchObject({ path: TODAY, created: false, duplicate: false, startLine: 7 });
    const log = await readFile(path.join(ws, TODAY), "utf8");
    expect(log.startsWith("# 2026-03-04\n\n## 09:00\n\n用户偏好：深色主题\n\n## 10:00\n\n")).toBe(
      true,
    );
    expect(log).toContain("REPLACE THE WHOLE FILE WITH THIS");
  });

  it("writes the same flush text once per cycle, whichever way today's log is named", async () => {
    const { ws, policy } = await setup();
    const tools = policy.tools("s", 1);
    const first = await tools.call("memory_write", { text: "决定：周五发布 v2" });
    const second = await tools.call("memory_write", {
      text: "  决定：周五发布 v2\n",
      target: TODAY,
    });
    expect(first).toMatchObject({ duplicate: false, path: TODAY });
    expect(second).toMatchObject({
      duplicate: true,
      path: TODAY,
      startLine: first.startLine,
      endLine: first.endLine,
    });
    // A new policy (restart) in the same cycle still remembers; the next cycle may write it again.
    const restarted = createFlushPolicy({
      memory: fileMemory(ws, clock),
      contextWindow: 100_000,
      clock,
    });
    expect(
      await restarted.tools("s", 1).call("memory_write", { text: "决定：周五发布 v2" }),
    ).toMatchObject({
      duplicate: true,
    });
    const log = await readFile(path.join(ws, TODAY), "utf8");
    expect(log.split("决定：周五发布 v2").length - 1).toBe(1);
    await restarted.tools("s", 2).call("memory_write", { text: "决定：周五发布 v2" });
    expect(
      (await readFile(path.join(ws, TODAY), "utf8")).split("决定：周五发布 v2").length - 1,
    ).toBe(2);
  });

  it("passes reads through and reports bad writes without recording them", async () => {
    const { ws, policy } = await setup();
    await writeFiles(ws, { "MEMORY.md": "# Long-term Memory\n\n- 喜欢简洁的回答\n" });
    const tools = policy.tools("s", 1);
    expect(await tools.call("memory_get", { path: "MEMORY.md", from: 3 })).toMatchObject({
      text: "- 喜欢简洁的回答",
    });
    await expect(
      tools.call("memory_write", { text: "x", target: "../outside.md" }),
    ).rejects.toMatchObject({ code: "PATH_OUTSIDE_WORKSPACE" });
    await expect(
      tools.call("memory_write", { text: "x", target: "notes.txt" }),
    ).rejects.toMatchObject({
      code: "PATH_NOT_ALLOWED",
    });
    expect(await tools.call("memory_write", { text: "x", target: "long-term" })).toMatchObject({
      duplicate: false,
      path: "MEMORY.md",
    });
  });
});

const here = path.dirname(fileURLToPath(import.meta.url));
const tsx = pathToFileURL(
  createRequire(path.resolve(here, "../../../../package.json")).resolve("tsx"),
).href;

/** Runs `fixtures/flush-worker.ts` in its own node process; resolves with its JSON line. */
function runWorker(ws: string, sessionId: string, cycle: number): Promise<{ recorded: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", tsx, path.join(here, "fixtures/flush-worker.ts"), ws, sessionId, String(cycle)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim())) : reject(new Error(`worker failed: ${err}`)),
    );
  });
}
