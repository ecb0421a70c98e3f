import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createMemory, fixedClock } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { type LoopEvent, runAgentLoop } from "../src/loop.js";

const SCRIPT = [
  "Remember: I always prefer answers in short bullet points.",
  "Remember that the staging deploy moved to Thursday 14:00.",
  "记住：数据库迁移由王芳负责，截止日期是周五。",
  "When is the staging deploy?",
  "谁负责数据库迁移？",
  "What format do I prefer for answers?",
];
const clock = fixedClock("2026-03-04T10:00:00");
const TODAY = "memory/2026-03-04.md";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "engram-agent-loop-"));
  dirs.push(dir);
  return dir;
}
const of = <T extends LoopEvent["type"]>(events: LoopEvent[], type: T) =>
  events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === type);

describe("example agent loop", () => {
  it("searches, answers, writes, and flushes once at the threshold (NO_REPLY swallowed)", async () => {
    const ws = await workspace();
    const events = await runAgentLoop({ workspace: ws, script: SCRIPT, clock });

    const answers = of(events, "assistant").map((e) => e.text);
    expect(answers).toContain(
      `From memory (${TODAY}#L1-L9): the staging deploy moved to Thursday 14:00.`,
    );
    expect(answers.some((a) => a.includes("数据库迁移由王芳负责"))).toBe(true);
    expect(answers.at(-1)).toMatch(/MEMORY\.md.*short bullet points/);
    expect(answers.some((a) => a.includes("NO_REPLY"))).toBe(false);

    const flushes = of(events, "flush");
    expect(flushes).toHaveLength(1);
    expect(flushes[0]).toMatchObject({ cycle: 0, swallowed: true, threshold: 300 });
    expect(flushes[0]?.tokens).toBeGreaterThanOrEqual(300);
    // The flush comes before the compaction that starts the next cycle.
    const order = events.map((e) => e.type).filter((t) => t === "flush" || t === "compaction");
    expect(order).toEqual(["flush", "compaction"]);
    expect(
      of(events, "tool")
        .filter((e) => e.silent)
        .map((e) => e.name),
    ).toEqual(["memory_write"]);

    const memoryFile = await readFile(join(ws, "MEMORY.md"), "utf8");
    expect(memoryFile).toContain("I always prefer answers in short bullet points.");
    const log = await readFile(join(ws, TODAY), "utf8");
    expect(log.startsWith("# 2026-03-04\n\n## 10:00\n\nthe staging deploy moved")).toBe(true);
    expect(log).toContain("Session notes before compaction:");
    expect(log.split("数据库迁移由王芳负责").length - 1).toBe(2); // the note, and the flush's list

    const state = JSON.parse(await readFile(join(ws, ".engram/sessions.json"), "utf8"));
    expect(state.sessions.example.flush.flushed.cycle).toBe(0);

    // The files are the truth: a fresh index over them finds the flush's notes.
    const memory = await createMemory({ workspace: ws, store: sqliteStore(), embedder: null });
    try {
      await memory.sync();
      const { results } = await memory.search("Session notes before compaction", { minScore: 0 });
      expect(results[0]?.path).toBe(TODAY);
    } finally {
      await memory.close();
    }
  });

  it("does not flush the same cycle again after a restart", async () => {
    const ws = await workspace();
    const first = await runAgentLoop({ workspace: ws, script: SCRIPT, clock });
    expect(of(first, "flush").map((e) => e.cycle)).toEqual([0]);
    // Same session, same cycle numbers: cycle 0 was flushed on disk, so only cycle 1 flushes.
    const again = await runAgentLoop({ workspace: ws, script: SCRIPT, clock });
    expect(of(again, "flush").map((e) => e.cycle)).toEqual([1]);
    // Another session has its own cycles: its cycle 0 flushes; never a cycle twice.
    const other = await runAgentLoop({ workspace: ws, script: SCRIPT, clock, sessionId: "b" });
    const cycles = of(other, "flush").map((e) => e.cycle);
    expect(cycles[0]).toBe(0);
    expect(new Set(cycles).size).toBe(cycles.length);
  });

  it("runs as a program (node dist/main.js) when built", async () => {
    const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
    const ws = await workspace();
    const { stdout } = await promisify(execFile)(process.execPath, [main, ws]);
    expect(stdout).toContain(`workspace: ${ws}`);
    expect(stdout).toMatch(/\[flush\] .*NO_REPLY swallowed/);
    expect(stdout).not.toContain("agent> NO_REPLY");
    expect(stdout).toContain("agent> From memory");
  });
});
