import { describe, expect, it } from "vitest";
import { applyConsolidation, undoConsolidation } from "../../src/consolidation/apply.js";
import { curatedFile } from "../../src/consolidation/curated.js";
import { duplicateMerges } from "../../src/consolidation/deterministic.js";
import { planConsolidation } from "../../src/consolidation/plan.js";
import { hostOf, tempWorkspace, writeFiles } from "../lifecycle-fixture.js";
import { expectSameTree, read, treeWithTimes } from "./helpers.js";

const NOW = new Date(2026, 2, 2, 3, 0);

async function fixture(): Promise<string> {
  const ws = await tempWorkspace();
  await writeFiles(ws, {
    "MEMORY.md": [
      "# Long-term Memory",
      "",
      "## 2026-02-01 09:00",
      "",
      "- Lin prefers advisory locks over Redis locks",
      "- 用户喜欢简洁的回答",
      "",
      "## 2026-02-10 09:00",
      "",
      "- lin prefers advisory locks over Redis locks.",
      "- 用户喜欢简洁的回答",
      "- The staging database of the billing service listens on port 5432 behind pgbouncer",
      "- The staging database of the billing service listens on port 5433 behind pgbouncer",
      "",
      "<!-- engram:private -->",
      "- 用户喜欢简洁的回答",
      "<!-- /engram:private -->",
      "",
    ].join("\n"),
    "memory/2026-03-01.md": [
      "# 2026-03-01",
      "",
      "## 10:00",
      "",
      "Deploy window moved to Tuesday 14:00 #important",
      "",
      "## 11:00",
      "",
      "<!-- engram:private -->",
      "the staging password is hunter2 #important",
      "<!-- /engram:private -->",
      "",
      "lunch was fine",
      "",
    ].join("\n"),
  });
  return ws;
}

describe("consolidation without a model", () => {
  it("plans merges of duplicates and adds important notes, writing nothing", async () => {
    const ws = await fixture();
    const before = await treeWithTimes(ws);
    const plan = await planConsolidation(hostOf(ws), { now: NOW });
    expectSameTree(await treeWithTimes(ws), before);
    expect(plan.mode).toBe("deterministic");
    const kinds = plan.operations.map((o) => [o.op, o.targets.map((t) => t.startLine), o.text]);
    expect(kinds).toEqual([
      ["MERGE", [5, 10], "- Lin prefers advisory locks over Redis locks"],
      ["MERGE", [6, 11], "- 用户喜欢简洁的回答"],
      ["ADD", [], "Deploy window moved to Tuesday 14:00"],
    ]);
    // Ports differ: left apart, not merged. The private copy is never compared.
    expect(plan.keptApart).toHaveLength(1);
    expect(plan.keptApart[0]?.facts).toEqual(expect.arrayContaining(["number:5433"]));
    // The private important line is refused, never promoted.
    expect(plan.refused.map((r) => [r.code, r.operation.text])).toEqual([
      ["private", "the staging password is hunter2"],
    ]);
    const memoryDiff = plan.diffs.find((d) => d.path === "MEMORY.md")?.diff ?? "";
    expect(memoryDiff).toContain("-- lin prefers advisory locks over Redis locks.");
    expect(memoryDiff).toContain("+- Deploy window moved to Tuesday 14:00");
    expect(plan.diffs.map((d) => d.path).sort()).toEqual([
      "MEMORY.md",
      "memory/archive/consolidation/2026-03-02.md",
      "memory/dreams/.state.json",
      "memory/dreams/2026-03-02.md",
    ]);
  });

  it("finds a near duplicate whose rarest words are the ones that changed", async () => {
    // Jaccard 17 / 21 = 0.81 ≥ 0.8. The first entry's three rarest terms are the three the second
    // dropped (every other word recurs below): a search from the rarest terms alone misses it.
    const words =
      "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec";
    const common = words.split(" ");
    const text = [
      "# Long-term Memory",
      "",
      `- ${words} zulu xray whiskey`,
      `- ${words} yankee`,
      ...Array.from(
        { length: 30 },
        (_, i) => `- ${common.slice(i % 5, (i % 5) + 12).join(" ")} note${i}`,
      ),
      "",
    ].join("\n");
    const ws = await tempWorkspace();
    const { ops } = await duplicateMerges(hostOf(ws), [curatedFile("MEMORY.md", text)]);
    expect(ops.map((o) => [o.targets.map((t) => t.startLine), o.reason])).toEqual([
      [[3, 4], "duplicates of MEMORY.md:3: MEMORY.md:4 (lexical 0.81)"],
    ]);
  });

  it("applies through the journal, archives every removed line, and undo restores bytes and mtimes", async () => {
    const ws = await fixture();
    const host = hostOf(ws);
    const before = await treeWithTimes(ws);
    const originalMemory = await read(ws, "MEMORY.md");
    const result = await applyConsolidation(host, { now: NOW });
    expect(result.outcome).toBe("committed");
    const memory = await read(ws, "MEMORY.md");
    expect(memory.match(/advisory locks/g)).toHaveLength(1);
    expect(memory).toContain("port 5432");
    expect(memory).toContain("port 5433");
    expect(memory).toContain("## 2026-03-02 03:00\n\n- Deploy window moved to Tuesday 14:00\n");
    expect(memory).not.toContain("hunter2");
    const archive = await read(ws, "memory/archive/consolidation/2026-03-02.md");
    for (const line of originalMemory.split("\n")) {
      if (line.trim()) expect(memory.includes(line) || archive.includes(line), line).toBe(true);
    }
    const report = await read(ws, "memory/dreams/2026-03-02.md");
    expect(report).toContain("### Merged");
    expect(report).toContain("### Added");
    expect(report).toContain("### Refused");
    expect(report).toContain("memory/2026-03-01.md:5");

    // Nothing new now: a second pass has nothing to do.
    const again = await planConsolidation(host, { now: new Date(2026, 2, 2, 4, 0) });
    expect(again.operations).toEqual([]);
    expect(again.lifecycle.steps).toEqual([]);

    await undoConsolidation(host);
    expectSameTree(await treeWithTimes(ws), before);
  });
});
