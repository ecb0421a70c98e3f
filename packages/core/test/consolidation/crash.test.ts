import { cp, utimes } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyConsolidation, undoConsolidation } from "../../src/consolidation/apply.js";
import { planConsolidation } from "../../src/consolidation/plan.js";
import { recoverLifecycle } from "../../src/lifecycle/apply.js";
import { undoRecords } from "../../src/lifecycle/journal.js";
import { allLines, hostOf, tempWorkspace, treeListing, writeFiles } from "../lifecycle-fixture.js";
import { expectSameTree, scripted, treeWithTimes } from "./helpers.js";

const NOW = new Date(2026, 2, 2, 3, 0);
const LOG = "memory/2026-03-01.md";

async function fixture(): Promise<string> {
  const ws = await tempWorkspace();
  await writeFiles(ws, {
    "MEMORY.md":
      "# Long-term Memory\n\n## Ops\n\n- The staging DB listens on port 5432\n- Deploys need two approvals\n- deploys need two approvals.\n\n## 偏好\n\n- 用户喜欢简洁的回答\n",
    [LOG]:
      "# 2026-03-01\n\n## 10:00\n\nThe staging DB moved to port 5433.\n项目「青鸟」的截止日期是2026-04-30。\n",
  });
  return ws;
}

const model = () =>
  scripted(() => ({
    operations: [
      {
        op: "SUPERSEDE",
        text: "The staging DB listens on port 5433",
        target: "MEMORY.md:5",
        merge: [],
        sources: [`${LOG}:5`],
        section: "",
        reason: "",
      },
      {
        op: "ADD",
        text: "项目「青鸟」的截止日期是2026-04-30",
        target: "",
        merge: [],
        sources: [`${LOG}:6`],
        section: "偏好",
        reason: "",
      },
    ],
  }));

async function copyOf(ws: string): Promise<string> {
  const to = await tempWorkspace();
  await cp(ws, to, {
    recursive: true,
    preserveTimestamps: true,
    filter: (s) => !s.includes(`${path.sep}.engram`),
  });
  return to;
}

describe("consolidation killed at every step", () => {
  it("leaves a tree the next run finishes (apply) or restores (undo), losing no line", async () => {
    const ws = await fixture();
    const plan = await planConsolidation(hostOf(ws), { now: NOW, model: model() });
    const steps = plan.lifecycle.steps.length;
    expect(steps).toBeGreaterThanOrEqual(6);
    const original = await treeListing(ws);
    const lines = await allLines(ws);
    const reference = await copyOf(ws);
    await applyConsolidation(hostOf(reference), { plan, now: NOW });
    const applied = await treeListing(reference);

    for (let crashAt = 0; crashAt < steps; crashAt++) {
      const copy = await copyOf(ws);
      const host = hostOf(copy);
      await expect(
        applyConsolidation(host, {
          plan,
          now: NOW,
          hook: (e) => {
            if (e.step === crashAt && e.phase === "done") throw new Error("killed");
          },
        }),
      ).rejects.toThrow("killed");
      const mid = await allLines(copy);
      for (const line of lines)
        expect(mid.has(line), `after step ${crashAt + 1}: ${line}`).toBe(true);
      const recovered = await recoverLifecycle(host);
      expect(recovered?.outcome).toBe("committed");
      expect(await treeListing(copy), `recovered after step ${crashAt + 1}`).toEqual(applied);

      // And an undo killed at the same step: recovery finishes it, back to the original.
      await expect(
        undoConsolidation(host, {
          hook: (e) => {
            if (e.step === crashAt && e.phase === "done") throw new Error("killed");
          },
        }),
      ).rejects.toThrow("killed");
      const midUndo = await allLines(copy);
      for (const line of lines)
        expect(midUndo.has(line), `undo, step ${crashAt + 1}: ${line}`).toBe(true);
      await recoverLifecycle(host);
      expect(await treeListing(copy), `undo recovered after step ${crashAt + 1}`).toEqual(original);
    }
  });

  it("an undo killed after rewriting a file but before giving it back its time: the next run gives the time back", async () => {
    const ws = await fixture();
    const host = hostOf(ws);
    const old = new Date(2026, 0, 5, 9, 30);
    await utimes(path.join(ws, "MEMORY.md"), old, old);
    const before = await treeWithTimes(ws);
    const { plan } = await applyConsolidation(host, { now: NOW, model: model() });
    const record = (await undoRecords(ws)).find((r) => r.applyId === plan.passId);
    const at = record?.steps.findIndex((s) => s.kind === "put" && s.path === "MEMORY.md") ?? -1;
    expect(at).toBeGreaterThanOrEqual(0);
    // The kill lands after MEMORY.md got its old bytes back, before it got its old time back
    // (the crash is at the step's end, so the time is set back to "now" by hand).
    await expect(
      undoConsolidation(host, {
        hook: (e) => {
          if (e.step === at && e.phase === "done") throw new Error("killed");
        },
      }),
    ).rejects.toThrow("killed");
    const now = new Date();
    await utimes(path.join(ws, "MEMORY.md"), now, now);
    expect((await recoverLifecycle(host))?.outcome).toBe("committed");
    expectSameTree(await treeWithTimes(ws), before);
  });
});
