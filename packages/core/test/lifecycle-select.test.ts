import { describe, expect, it } from "vitest";
import { applyPlan, planLifecycle, undoLastApply } from "../src/lifecycle/index.js";
import { hostOf, NOW, richWorkspace, treeListing, writeFiles } from "./lifecycle-fixture.js";

describe("lifecycle plan with a selection (moves approved one by one)", () => {
  it("plans only the approved moves; the rejected ones stay put and come back in the next plan", async () => {
    const ws = await richWorkspace();
    const host = hostOf(ws);
    const original = await treeListing(ws);
    const full = await planLifecycle(host, { now: NOW });
    expect(full.items.length).toBeGreaterThan(4);

    // Approve every other move, as a person ticking half of the list would.
    const approved = full.items.filter((_, i) => i % 2 === 0);
    const keys = new Set(approved.map((i) => `${i.rule}\n${i.from}`));
    const subset = await planLifecycle(host, {
      now: NOW,
      select: (move) => keys.has(`${move.rule}\n${move.from}`),
    });
    expect(subset.items.map((i) => [i.rule, i.from, i.to])).toEqual(
      approved.map((i) => [i.rule, i.from, i.to]),
    );

    const applied = await applyPlan(host, subset, { now: NOW });
    expect(applied.outcome).toBe("committed");
    // What was rejected is still there and is planned again, under the same rule.
    const next = await planLifecycle(host, { now: NOW });
    const rejected = full.items.filter((_, i) => i % 2 === 1);
    expect(next.items.map((i) => [i.rule, i.from])).toEqual(rejected.map((i) => [i.rule, i.from]));

    await undoLastApply(host, { now: NOW });
    expect(await treeListing(ws)).toEqual(original);
  });

  it("a rejected move keeps its path claimed: no later rule picks the file up instead", async () => {
    const ws = await richWorkspace();
    // Both expired (untouched for days) and ended: session-expired claims it first.
    await writeFiles(ws, {
      "memory/short-term/sessions/s-both.md":
        "---\nended: true\nupdated: 2026-01-09T08:00:00\n---\n# Session s-both\n\n两条规则都匹配\n",
    });
    const host = hostOf(ws);
    const full = await planLifecycle(host, { now: NOW });
    expect(full.items.find((i) => i.from.endsWith("s-both.md"))?.rule).toBe("session-expired");
    const subset = await planLifecycle(host, {
      now: NOW,
      select: (move) => move.rule !== "session-expired",
    });
    expect(subset.items.some((i) => i.from.endsWith("s-both.md"))).toBe(false);
    expect(subset.items.length).toBe(full.items.filter((i) => i.rule !== "session-expired").length);
    const none = await planLifecycle(host, { now: NOW, select: () => false });
    expect(none.items).toEqual([]);
    expect(none.steps).toEqual([]);
  });
});
