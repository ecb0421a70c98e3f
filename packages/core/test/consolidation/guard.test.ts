import { describe, expect, it } from "vitest";
import { applyConsolidation } from "../../src/consolidation/apply.js";
import { planConsolidation } from "../../src/consolidation/plan.js";
import { RecallLog } from "../../src/lifecycle/recall.js";
import { hostOf, tempWorkspace, treeListing, writeFiles } from "../lifecycle-fixture.js";
import { scripted } from "./helpers.js";

const NOW = new Date(2026, 2, 2, 3, 0);

async function fixture(memory: string): Promise<string> {
  const ws = await tempWorkspace();
  await writeFiles(ws, {
    "MEMORY.md": memory,
    "memory/2026-03-01.md":
      "# 2026-03-01\n\n## 10:00\n\nquokka and zebra at the zoo\n\ngiraffe elephant replaced it\n",
  });
  const log = new RecallLog(ws, () => NOW);
  log.noteSearch("quokka zebra", [{ path: "MEMORY.md", startLine: 1, endLine: 4, tier: "long" }]);
  await log.flush();
  return ws;
}

const supersede = () =>
  scripted(() => ({
    operations: [
      {
        op: "SUPERSEDE",
        text: "giraffe elephant",
        target: "MEMORY.md:3",
        merge: [],
        sources: ["memory/2026-03-01.md:7"],
        section: "",
        reason: "",
      },
    ],
  }));

describe("the recall guard", () => {
  it("refuses an apply after which a recalled query no longer finds the content", async () => {
    const ws = await fixture("# M\n\n- quokka zebra\n");
    const host = hostOf(ws, { search: { maxResults: 1 } });
    const plan = await planConsolidation(host, { now: NOW, model: supersede() });
    expect(plan.operations.map((o) => o.op)).toEqual(["SUPERSEDE"]);
    expect(plan.guard).toMatchObject({ checked: 1, passed: 0, unchecked: 0 });
    expect(plan.guard.failed).toEqual([
      expect.objectContaining({
        query: "quokka zebra",
        line: { path: "MEMORY.md", startLine: 3, endLine: 3 },
      }),
    ]);
    const before = await treeListing(ws);
    await expect(applyConsolidation(host, { now: NOW, plan })).rejects.toMatchObject({
      code: "RECALL_GUARD",
      message: expect.stringContaining('"quokka zebra" → MEMORY.md:3'),
    });
    expect(await treeListing(ws)).toEqual(before);

    // With skipUnsafe the operation is left out and reported; the rest of the pass applies.
    const safe = await planConsolidation(host, { now: NOW, model: supersede(), skipUnsafe: true });
    expect(safe.operations).toEqual([]);
    expect(safe.refused.map((r) => [r.code, r.detail])).toEqual([
      ["recall-guard", ["quokka zebra"]],
    ]);
    expect(safe.guard.failed).toEqual([]);
  });

  it("passes when the content stays findable (in place, merged or archived)", async () => {
    // A roomier top k: the archived line is among the results.
    const ws = await fixture("# M\n\n- quokka zebra\n");
    const plan = await planConsolidation(hostOf(ws, { search: { maxResults: 3 } }), {
      now: NOW,
      model: supersede(),
    });
    expect(plan.guard).toMatchObject({ checked: 1, passed: 1, failed: [] });

    // A merge keeps the content in the surviving entry.
    const dup = await fixture("# M\n\n- quokka zebra\n- quokka zebra.\n");
    const merged = await planConsolidation(hostOf(dup, { search: { maxResults: 1 } }), {
      now: NOW,
    });
    expect(merged.operations.map((o) => o.op)).toEqual(["MERGE"]);
    expect(merged.guard).toMatchObject({ failed: [] });
  });
});
