import { describe, expect, it } from "vitest";
import { applyConsolidation, undoConsolidation } from "../../src/consolidation/apply.js";
import { planConsolidation } from "../../src/consolidation/plan.js";
import { selectOperations } from "../../src/consolidation/select.js";
import { readState } from "../../src/consolidation/state.js";
import { LanguageModelChain } from "../../src/model/chain.js";
import { ModelError } from "../../src/model/errors.js";
import { createScriptedLanguageModel } from "../../src/testing/scripted-language-model.js";
import { hostOf, tempWorkspace, writeFiles } from "../lifecycle-fixture.js";
import { expectSameTree, read, scripted, treeWithTimes } from "./helpers.js";

const NOW = new Date(2026, 2, 2, 3, 0);
const LOG = "memory/2026-03-01.md";

async function fixture(): Promise<string> {
  const ws = await tempWorkspace();
  await writeFiles(ws, {
    "MEMORY.md": [
      "# Long-term Memory", //                                  1
      "", //                                                    2
      "## Ops", //                                              3
      "", //                                                    4
      "- The staging DB listens on port 5432", //               5
      "- Deploys need two approvals from Lin", //               6
      "- Backups run nightly at 02:00", //                      7
      "", //                                                    8
      "## Preferences", //                                      9
      "", //                                                   10
      "- 用户喜欢简洁的回答", //                                 11
      "", //                                                   12
    ].join("\n"),
    [LOG]: [
      "# 2026-03-01", //                                        1
      "", //                                                    2
      "## 10:00", //                                            3
      "", //                                                    4
      "Lin moved the staging DB to port 5433 today.", //        5
      "Backups now also run at 14:00, besides 02:00.", //       6
      "用户说项目「青鸟」的截止日期是2026-04-30。", //            7
      "Lin prefers dark mode in every tool.", //                8
      "", //                                                    9
      "<!-- engram:private -->", //                            10
      "The VPN password is hunter2.", //                       11
      "<!-- /engram:private -->", //                           12
      "", //                                                   13
    ].join("\n"),
  });
  return ws;
}

/** Operations a careless model might return: some right, each wrong in its own way. */
const ANSWER = {
  operations: [
    op("SUPERSEDE", "The staging DB listens on port 5433", "MEMORY.md:5", [`${LOG}:5`], "moved"),
    op("UPDATE", "Backups run nightly at 02:00 and at 14:00", "MEMORY.md:7", [`${LOG}:6`]),
    op("ADD", "项目「青鸟」的截止日期是2026-04-30", "", [`${LOG}:7`]),
    op("ADD", "Lin prefers dark mode in every tool", "MEMORY.md", [`${LOG}:8`], "", "Preferences"),
    // wrong: a number the notes never said
    op("ADD", "Lin prefers dark mode since 2019", "", [`${LOG}:8`]),
    // wrong: cites a line that does not exist
    op("ADD", "Lin likes tea", "", [`${LOG}:99`]),
    // wrong: drops "two" and "Lin" from the entry it rewrites
    op("UPDATE", "Deploys need approvals", "MEMORY.md:6", [`${LOG}:5`]),
    // wrong: rewrites a daily log
    op("UPDATE", "Lin moved the staging DB to port 5433 on 2026-03-01.", `${LOG}:5`, [`${LOG}:5`]),
    // wrong: cites a private line it was never shown
    op("ADD", "The VPN password is hunter2", "", [`${LOG}:11`]),
    // wrong: the same entry as an accepted operation
    op("UPDATE", "The staging DB listens on port 5433, formerly 5432", "MEMORY.md:5", [`${LOG}:5`]),
    // already known
    op("ADD", "用户喜欢简洁的回答", "", [`${LOG}:7`]),
    op("SUMMARY", "Lin moved staging to port 5433 and set the 青鸟 deadline 2026-04-30.", "", [
      `${LOG}:5-8`,
    ]),
  ],
};

function op(
  kind: string,
  text: string,
  target: string,
  sources: string[],
  reason = "",
  section = "",
) {
  return { op: kind, text, target, merge: [], sources, section, reason };
}

describe("consolidation with a model", () => {
  it("applies what the model proposes and engram verifies, refusing the rest with reasons", async () => {
    const ws = await fixture();
    const host = hostOf(ws);
    const before = await treeWithTimes(ws);
    const model = scripted(() => ANSWER);
    const plan = await planConsolidation(host, { now: NOW, model });
    const prompt = model.requests[0]?.messages[0]?.content ?? "";
    expect(prompt).toContain("Today is 2026-03-02.");
    expect(prompt).toContain("MEMORY.md:5| - The staging DB listens on port 5432");
    expect(prompt).toContain(`${LOG}:7| 用户说项目「青鸟」的截止日期是2026-04-30。`);
    expect(prompt).not.toContain("hunter2");
    expect(model.requests[0]?.schema).toBeDefined();

    expect(plan.operations.map((o) => o.op)).toEqual([
      "SUPERSEDE",
      "UPDATE",
      "ADD",
      "ADD",
      "SUMMARY",
    ]);
    expect(plan.refused.map((r) => r.code)).toEqual([
      "unsupported",
      "lines-missing",
      "drops-facts",
      "raw-log",
      "not-shown",
      "conflict",
    ]);
    expect(plan.refused[0]?.detail).toEqual(['number "2019"']);
    expect(plan.refused[2]?.detail).toEqual(expect.arrayContaining(['name "lin"']));
    expect(plan.duplicates.map((d) => d.existing.startLine)).toEqual([11]);
    expect(plan.tokens.calls).toBe(1);
    expect(plan.tokens.input).toBeGreaterThan(100);

    await applyConsolidation(host, { now: NOW, plan });
    const memory = await read(ws, "MEMORY.md");
    expect(memory).toContain(
      "- The staging DB listens on port 5433 <!-- supersedes an entry archived in memory/archive/consolidation/2026-03-02.md -->",
    );
    expect(memory).toContain("- Backups run nightly at 02:00 and at 14:00");
    expect(memory).toContain(
      "## Preferences\n\n- 用户喜欢简洁的回答\n- Lin prefers dark mode in every tool\n",
    );
    expect(memory).toContain("## 2026-03-02 03:00\n\n- 项目「青鸟」的截止日期是2026-04-30\n");
    const archive = await read(ws, "memory/archive/consolidation/2026-03-02.md");
    expect(archive).toContain("- The staging DB listens on port 5432");
    expect(archive).toContain("- Backups run nightly at 02:00");
    const report = await read(ws, "memory/dreams/2026-03-02.md");
    expect(report).toContain("### Summary");
    expect(report).toContain("### Refused");
    expect(report).toContain("drops-facts");
    expect(await read(ws, LOG)).toContain("Lin moved the staging DB to port 5433 today.");

    await undoConsolidation(host);
    expectSameTree(await treeWithTimes(ws), before);
  });

  it("sends private lines only when the workspace opts in, and still never promotes them", async () => {
    const ws = await fixture();
    const model = scripted(() => ({
      operations: [op("ADD", "The VPN password is hunter2", "", [`${LOG}:11`])],
    }));
    const plan = await planConsolidation(hostOf(ws, { consolidation: { includePrivate: true } }), {
      now: NOW,
      model,
    });
    expect(model.requests[0]?.messages[0]?.content).toContain("hunter2");
    expect(plan.refused.map((r) => r.code)).toEqual(["private"]);
    expect(plan.operations).toEqual([]);
  });

  it("sizes prompts to the context, stops at the token budget, and resumes where it stopped", async () => {
    const ws = await tempWorkspace();
    const files: Record<string, string> = { "MEMORY.md": "# Long-term Memory\n" };
    for (let d = 1; d <= 6; d++) {
      const lines = Array.from(
        { length: 30 },
        (_, i) => `- note ${d}.${i}: the build took ${d * 10 + i} seconds on runner r${i}`,
      );
      files[`memory/2026-03-0${d}.md`] = `# 2026-03-0${d}\n\n## 10:00\n\n${lines.join("\n")}\n`;
    }
    await writeFiles(ws, files);
    const model = scripted(() => ({ operations: [] }), { contextTokens: 2048 });
    const host = hostOf(ws, { consolidation: { maxOutputTokens: 256 } });
    const plan = await planConsolidation(host, { now: NOW, model, maxTokens: 5000 });
    expect(model.requests.length).toBeGreaterThan(1);
    for (const r of model.requests) {
      const sent = (r.system?.length ?? 0) + (r.messages[0]?.content.length ?? 0);
      expect(sent / 4).toBeLessThan(2048);
    }
    expect(plan.tokens.exhausted).toBe(true);
    expect(plan.tokens.input + plan.tokens.output).toBeLessThanOrEqual(5000);
    expect(plan.newMaterial.some((m) => !m.processed)).toBe(true);
    await applyConsolidation(host, { now: NOW, plan });
    const state = await readState(ws);
    const partial = Object.values(state.seen).filter((s) => s.size === -1);
    const unread = ["1", "2", "3", "4", "5", "6"].filter((d) => !state.seen[`daily:2026-03-0${d}`]);
    expect(partial.length + unread.length).toBeGreaterThan(0);
    // The next pass sends only what the first did not.
    const next = scripted(() => ({ operations: [] }), { contextTokens: 2048 });
    await planConsolidation(host, { now: new Date(2026, 2, 3, 3, 0), model: next });
    const firstSent = model.requests.map((r) => r.messages[0]?.content ?? "").join("\n");
    const secondSent = next.requests.map((r) => r.messages[0]?.content ?? "").join("\n");
    const noteLines = (t: string) =>
      t.split("\n").filter((l) => /^memory\/2026-03-0\d\.md:\d+\| - note/.test(l));
    const overlap = noteLines(secondSent).filter((l) => noteLines(firstSent).includes(l));
    expect(overlap).toEqual([]);
    expect(noteLines(firstSent).length + noteLines(secondSent).length).toBe(180);
  });
});

describe("a model that fails", () => {
  const cutOff = {
    text: '{"operations": [{"op": "ADD", "text": "R2,R2,R2,R2',
    finishReason: "length",
    usage: { inputTokens: 900, outputTokens: 64 },
  };

  it("counts the tokens every failed attempt spent, and says the model failed, not the budget", async () => {
    const ws = await fixture();
    const memory = await read(ws, "MEMORY.md");
    await writeFiles(ws, {
      "MEMORY.md": memory.replace(
        "- Backups run nightly at 02:00\n",
        "- Backups run nightly at 02:00\n- Backups run nightly at 02:00\n",
      ),
    });
    const host = hostOf(ws);
    // A weak local model whose answer is cut off at maxTokens: core's run retries it twice.
    const inner = createScriptedLanguageModel({ script: () => cutOff });
    const chain = new LanguageModelChain([inner], {
      retry: { retries: 2, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 },
      circuit: { failureThreshold: 5, cooldownMs: 60_000, finalCooldownMs: 600_000 },
      hooks: { sleep: async () => {} },
    });
    const plan = await planConsolidation(host, { now: NOW, model: chain.run() });
    expect(inner.requests).toHaveLength(3);
    expect(plan.modelError).toContain("cut off at the token limit");
    expect(plan.tokens).toMatchObject({ calls: 1, input: 2700, output: 192, exhausted: false });
    expect(plan.newMaterial.every((m) => !m.processed)).toBe(true);
    // The merge engram found itself still stands.
    expect(plan.operations.map((o) => `${o.op} ${o.origin}`)).toEqual(["MERGE duplicates"]);
    await applyConsolidation(host, { now: NOW, plan });
    const report = await read(ws, "memory/dreams/2026-03-02.md");
    expect(report).toContain("No new notes were read.");
    expect(report).toContain("The model failed: scripted: the answer was cut off");
    expect(report).toContain(`Left for the next pass (the model failed): ${LOG}.`);
    expect(report).toContain("Model calls: 1, tokens sent 2700, received 192.");
  });

  it("counts what a bare model's failed answer reports", async () => {
    const ws = await fixture();
    const model = createScriptedLanguageModel({
      script: () =>
        new ModelError("bad_response", "bare", "the answer is not JSON", {
          usage: { inputTokens: 700, outputTokens: 30 },
        }),
    });
    const plan = await planConsolidation(hostOf(ws), { now: NOW, model });
    expect(plan.tokens).toMatchObject({ calls: 1, input: 700, output: 30 });
    expect(plan.modelError).toBe("bare: the answer is not JSON");
  });
});

describe("approving part of a plan", () => {
  it("applies only the chosen operations, reports the rest as not approved, and undoes", async () => {
    const ws = await fixture();
    const host = hostOf(ws);
    const before = await treeWithTimes(ws);
    const model = scripted(() => ANSWER);
    const plan = await planConsolidation(host, { now: NOW, model });
    const add = plan.operations.find((o) => o.op === "ADD" && o.text.includes("青鸟"));
    expect(add).toBeDefined();
    const part = await selectOperations(host, plan, [add?.id as string]);
    expect(model.requests).toHaveLength(1); // the model is not asked again
    expect(part.operations.map((o) => o.id)).toEqual([add?.id]);
    expect(part.refused.filter((r) => r.code === "not-approved")).toHaveLength(
      plan.operations.length - 1,
    );
    await applyConsolidation(host, { now: NOW, plan: part });
    const memory = await read(ws, "MEMORY.md");
    expect(memory).toContain("- 项目「青鸟」的截止日期是2026-04-30");
    expect(memory).toContain("- The staging DB listens on port 5432"); // the SUPERSEDE was left out
    expect(await read(ws, "memory/dreams/2026-03-02.md")).toContain("not-approved");
    await expect(selectOperations(host, plan, ["op-99"])).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await undoConsolidation(host);
    expectSameTree(await treeWithTimes(ws), before);
  });
});
