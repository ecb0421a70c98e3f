import { applyConsolidation, applyPlan, createMemory, type Memory } from "@engram/core";
import { createScriptedLanguageModel, seededRandom } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import {
  allFiles,
  dayEntries,
  expectNoDuplicates,
  expectSameTree,
  FACTS,
  simulatedModel,
  treeWithTimes,
} from "./consolidation-sim.js";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

const DAY = 86_400_000;

/**
 * Sixty simulated days on real files and real SQLite, English and Chinese, consolidated every
 * night — once with a scripted model, once without a model — after the lifecycle rules ran. After
 * every pass: no line ever written is missing from the workspace (curated file, log or archive),
 * long-term memory holds no duplicate and no private text, and undo restores the tree exactly
 * (bytes and mtimes) before the pass is applied again.
 */
describe.each(["deterministic", "model"] as const)("consolidation over 60 days (%s)", (mode) => {
  let ws: string;
  let memory: Memory | undefined;
  afterEach(async () => {
    await memory?.close();
    await removeDir(ws);
  });

  it("loses nothing, leaves no duplicate, and every pass undoes exactly", async () => {
    ws = await tempDir(`engram-consolidate-${mode}-`);
    const start = new Date(2026, 0, 1, 10, 0).getTime();
    let now = new Date(start);
    await writeFiles(ws, {
      "MEMORY.md":
        "# Long-term Memory\n\n## Team\n\n- Lin prefers advisory locks over Redis locks\n",
    });
    memory = await createMemory({
      workspace: ws,
      store: sqliteStore(),
      clock: { now: () => new Date(now) },
      readConfigFile: false,
    });
    const m = memory;
    const rand = seededRandom(21);
    const model =
      mode === "model"
        ? createScriptedLanguageModel({
            contextTokens: 4096,
            script: (request, n) => ({ value: simulatedModel(request, n + 1) }),
          })
        : null;
    const written = new Set<string>(["- Lin prefers advisory locks over Redis locks"]);
    const secrets: string[] = [];
    const counts = {
      ADD: 0,
      UPDATE: 0,
      SUPERSEDE: 0,
      MERGE: 0,
      SUMMARY: 0,
      refused: 0,
      duplicates: 0,
    };
    const tokensPerDay: number[] = [];

    for (let d = 0; d < 60; d++) {
      now = new Date(start + d * DAY);
      for (const [i, entry] of dayEntries(d, rand).entries()) {
        now = new Date(start + d * DAY + i * 600_000);
        await m.appendDaily(entry);
        for (const line of entry.split("\n")) if (line.trim()) written.add(line);
        const secret = /hunter\d+/.exec(entry)?.[0];
        if (secret) secrets.push(secret);
      }
      if (d % 6 === 3) {
        // The agent writes to long-term memory itself, sometimes what is already there.
        const fact = FACTS[Math.floor(rand() * FACTS.length)] as string;
        const r = await m.appendLongTerm(`- ${fact}`);
        expect(r.path).toBe("MEMORY.md");
        written.add(`- ${fact}`);
      }
      // Recall: searches for what the agent needs.
      await m.search(FACTS[d % FACTS.length] as string);
      await m.search("staging DB port");
      if (d % 4 === 2) await m.search(`Release ${d - 1} blocked`);

      now = new Date(start + (d + 1) * DAY - 7 * 3_600_000); // 03:00 the next day
      const moved = await applyPlan(m, undefined, { now });
      expect(moved.outcome).toBe("committed");
      const before = await treeWithTimes(ws);
      const plan = await m.consolidate({ mode: "plan", now, model, skipUnsafe: true });
      const applied = await m.consolidate({ mode: "apply", now, model, skipUnsafe: true });
      expect(applied.reused, `day ${d}: the saved plan is applied`).toBe(true);
      expect(applied.plan.passId).toBe(plan.passId);
      expect(applied.outcome).toBe("committed");
      if (applied.steps > 0) {
        const after = await treeWithTimes(ws);
        await m.undoConsolidation();
        expectSameTree(await treeWithTimes(ws), before, `day ${d} undo`);
        const again = await applyConsolidation(m, { plan, now });
        expect(again.outcome).toBe("committed");
        expect((await treeWithTimes(ws)).map((l) => l.replace(/ [\d.]+$/, ""))).toEqual(
          after.map((l) => l.replace(/ [\d.]+$/, "")),
        );
      }
      for (const o of plan.operations) counts[o.op]++;
      counts.refused += plan.refused.length;
      counts.duplicates += plan.duplicates.length;
      if (plan.tokens.calls) tokensPerDay.push(plan.tokens.input);

      // Must hold, every day.
      const files = await allFiles(ws);
      const everything = new Set([...files.values()].flatMap((t) => t.split("\n")));
      for (const line of written)
        expect(everything.has(line), `day ${d}: "${line}" is somewhere`).toBe(true);
      const longTerm = files.get("MEMORY.md") ?? "";
      for (const s of secrets) expect(longTerm.includes(s), `day ${d}: ${s} promoted`).toBe(false);
      expectNoDuplicates(longTerm, m.analyzer, m.config.lifecycle.promote.threshold, `day ${d}`);
    }

    const files = await allFiles(ws);
    expect(
      [...files.keys()].filter((p) => p.startsWith("memory/dreams/2026-")).length,
    ).toBeGreaterThan(50);
    expect(counts.MERGE).toBeGreaterThan(0);
    expect(counts.ADD).toBeGreaterThan(0);
    if (mode === "model") {
      expect(counts.SUPERSEDE).toBeGreaterThan(0);
      expect(counts.refused).toBeGreaterThan(0);
      const sorted = [...tokensPerDay].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      console.log(
        `consolidation with a scripted model over 60 days: ${tokensPerDay.length} passes with model calls, prompt tokens per pass median ${median}, max ${sorted.at(-1)} (core's estimator); operations ${JSON.stringify(counts)}`,
      );
    } else {
      console.log(
        `consolidation without a model over 60 days: operations ${JSON.stringify(counts)}`,
      );
    }
  }, 300_000);
});
