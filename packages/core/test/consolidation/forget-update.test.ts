import { describe, expect, it } from "vitest";
import { forget, undoForget } from "../../src/consolidation/forget.js";
import { planConsolidation } from "../../src/consolidation/plan.js";
import { undoUpdate, updateMemory } from "../../src/consolidation/update.js";
import { hostOf, tempWorkspace, writeFiles } from "../lifecycle-fixture.js";
import { expectSameTree, read, treeWithTimes } from "./helpers.js";

const NOW = new Date(2026, 2, 2, 9, 0);

async function fixture(): Promise<string> {
  const ws = await tempWorkspace();
  await writeFiles(ws, {
    "MEMORY.md":
      "# Long-term Memory\n\n## Preferences\n\n- 用户喜欢简洁的回答\n- Lin prefers tea\n\n## Ops\n\n- Staging DB on port 5432\n",
    "memory/2026-03-01.md":
      "# 2026-03-01\n\n## 10:00\n\nLin prefers tea #important\n\nthe wifi code is 1234\n",
  });
  return ws;
}

describe("forget", () => {
  it("takes lines out, archives them with a tombstone consolidation honours, and undo brings them back", async () => {
    const ws = await fixture();
    const host = hostOf(ws);
    const before = await treeWithTimes(ws);
    const dry = await forget(host, { query: "lin prefers TEA" }, { now: NOW, dryRun: true });
    expect(dry.forgotten.map((f) => `${f.path}:${f.startLine}`)).toEqual(["MEMORY.md:6"]);
    expectSameTree(await treeWithTimes(ws), before);

    const done = await forget(
      host,
      { query: "lin prefers tea" },
      { now: NOW, reason: "no longer true" },
    );
    expect(done.outcome).toBe("committed");
    expect(await read(ws, "MEMORY.md")).not.toContain("Lin prefers tea");
    const archive = await read(ws, "memory/archive/consolidation/2026-03-02.md");
    expect(archive).toContain("reason=forgotten from=MEMORY.md:6");
    expect(archive).toContain("> no longer true");
    expect(archive).toContain("- Lin prefers tea");
    // The daily log still says it (logs are not rewritten), marked important: consolidation
    // would promote it, but the tombstone refuses it.
    const plan = await planConsolidation(host, { now: NOW });
    expect(plan.refused.map((r) => [r.code, r.operation.text])).toEqual([
      ["forgotten", "Lin prefers tea"],
    ]);
    expect(plan.operations.filter((o) => o.op === "ADD")).toEqual([]);

    await undoForget(host);
    expectSameTree(await treeWithTimes(ws), before);
    // Nothing left to undo: the message names the forget, not a lifecycle apply.
    await expect(undoForget(host)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: "there is no forget to undo",
      hint: expect.not.stringContaining("lifecycle"),
    });
  });

  it("strikes log lines only with fromLog, refuses unknown lines and empty queries", async () => {
    const ws = await fixture();
    const host = hostOf(ws);
    await expect(
      forget(host, { path: "memory/2026-03-01.md", startLine: 7, endLine: 7 }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining("never rewritten"),
    });
    await expect(
      forget(host, { path: "MEMORY.md", startLine: 40, endLine: 41 }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(forget(host, { query: "nothing like this" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    const done = await forget(
      host,
      { path: "memory/2026-03-01.md", startLine: 7, endLine: 7 },
      { fromLog: true, now: NOW },
    );
    expect(done.outcome).toBe("committed");
    expect(await read(ws, "memory/2026-03-01.md")).not.toContain("wifi");
    expect(await read(ws, "memory/archive/consolidation/2026-03-02.md")).toContain(
      "the wifi code is 1234",
    );
  });
});

describe("update", () => {
  it("replaces lines or a section, archives the old text, lists dropped facts, and undoes", async () => {
    const ws = await fixture();
    const host = hostOf(ws);
    const before = await treeWithTimes(ws);
    const lines = await updateMemory(
      host,
      { path: "MEMORY.md", startLine: 10, endLine: 10 },
      "Staging DB on port 5433",
      {
        now: NOW,
        reason: "moved",
      },
    );
    expect(lines.dropped).toEqual(['number "5432"']);
    expect(await read(ws, "MEMORY.md")).toContain("- Staging DB on port 5433\n");
    expect(await read(ws, "memory/archive/consolidation/2026-03-02.md")).toContain(
      "- Staging DB on port 5432",
    );
    await undoUpdate(host);
    expectSameTree(await treeWithTimes(ws), before);

    const section = await updateMemory(
      host,
      { path: "MEMORY.md", section: "Preferences" },
      "- 用户喜欢先给结论\n- Lin prefers tea",
      {
        now: NOW,
      },
    );
    expect(section.startLine).toBe(5);
    expect(section.endLine).toBe(6);
    const memory = await read(ws, "MEMORY.md");
    expect(memory).toContain("## Preferences\n\n- 用户喜欢先给结论\n- Lin prefers tea\n\n## Ops");
    await expect(
      updateMemory(host, { path: "memory/2026-03-01.md", startLine: 5, endLine: 5 }, "x"),
    ).rejects.toMatchObject({
      code: "PATH_NOT_ALLOWED",
    });
    await expect(
      updateMemory(host, { path: "MEMORY.md", section: "Nope" }, "x"),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });
});
