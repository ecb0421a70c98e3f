import { join } from "node:path";
import {
  type ConsolidationPlan,
  type MemoryStatus,
  parseRef,
  type RefusalCode,
} from "@engram/core";
import { factsOf, missingFacts } from "@engram/core/internal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyLlamaGguf } from "../../embed-local/test/fixtures/tiny-llama-gguf.js";
import { allFiles, expectSameTree, treeWithTimes } from "./consolidation-sim.js";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

const NOW = ["--now", "2026-03-03T03:00:00"];
const MEMORY =
  "# Long-term Memory\n\n## Team\n\n- Lin prefers advisory locks over Redis locks\n- lin prefers advisory locks over Redis locks.\n- 用户喜欢简洁的回答，先给结论\n";
const LOGS: Record<string, string> = {
  "memory/2026-03-01.md":
    "# 2026-03-01\n\n## 10:00\n\nBackups run nightly at 02:00 on db-7\n\nThe API rate limit is 600 requests per minute\n\nlunch was fine\n",
  "memory/2026-03-02.md":
    "# 2026-03-02\n\n## 09:30\n\n项目「青鸟」的负责人是王芳\n\n用户偏好深色主题\n\n今天天气不错\n",
};
const REFUSAL_CODES: readonly RefusalCode[] = [
  "invalid",
  "lines-missing",
  "not-shown",
  "unsupported",
  "drops-facts",
  "private",
  "forgotten",
  "raw-log",
  "not-curated",
  "conflict",
  "recall-guard",
  "not-approved",
];

type PlanJson = Omit<ConsolidationPlan, "lifecycle" | "basis"> & { steps: number };

/**
 * Consolidation's model mode end to end with a real language model: node-llama-cpp runs a tiny
 * llama GGUF the test writes (random weights; no model can be downloaded here) under the JSON
 * grammar built from consolidation's schema, inside the built CLI's child processes. What a random
 * model proposes is junk, which is the point: engram must refuse every operation it cannot check
 * against the workspace, still carry out its own deterministic merge, and undo the pass exactly.
 *
 * Seed 17 is the fixture seed whose greedy answer to this workspace's prompt is a complete JSON
 * answer with an operation in it (most seeds answer `{"operations": []}` or loop inside a string
 * until maxTokens cuts them off — that path is covered by core's `model.test.ts`).
 */
describe("engram consolidate with a local GGUF language model (built CLI)", () => {
  let dir: string;
  let ws: string;
  let modelPath: string;
  const run = async (...args: string[]) => {
    const result = await engram([...args, "-w", ws]);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };

  /** A fresh workspace whose config runs the tiny llama of `seed` as the local language model. */
  const workspace = async (seed: number, llm: Record<string, unknown> = {}) => {
    modelPath = await writeTinyLlamaGguf(join(dir, `models-${seed}`), {
      seed,
      contextLength: 4096,
    });
    ws = join(dir, `ws-${seed}`);
    await writeFiles(ws, {
      "MEMORY.md": MEMORY,
      ...LOGS,
      "engram.config.json": JSON.stringify({
        embedding: { provider: "none" },
        llm: {
          provider: "local",
          providers: { local: { modelPath, gpu: "cpu", threads: 1, contextSize: 4096 } },
          ...llm,
        },
        consolidation: { maxOutputTokens: 256 },
      }),
    });
  };

  beforeAll(async () => {
    dir = await tempDir("engram-consolidate-gguf-");
  });
  afterAll(async () => {
    await removeDir(dir);
  });

  it("the model proposes, engram checks, apply writes only what passed, undo restores the tree", async () => {
    await workspace(17);
    const sources = await allFiles(ws);
    const before = await treeWithTimes(ws);

    const plan = JSON.parse(await run("consolidate", "plan", "--json", ...NOW)) as PlanJson;
    // The model was really called: the local model, tokens read and written.
    expect(plan.mode).toBe("model");
    expect(plan.model).toEqual({ id: "local", model: "tiny-llama.gguf" });
    expect(plan.tokens.calls).toBeGreaterThanOrEqual(1);
    expect(plan.tokens.input).toBeGreaterThan(0);
    expect(plan.tokens.output).toBeGreaterThan(0);
    expect(await allFiles(ws)).toEqual(sources);

    // Every operation the model proposed was judged: accepted after engram's checks, known
    // already, or refused with a reason.
    const accepted = plan.operations.filter((o) => o.origin === "model");
    const refused = plan.refused.filter((r) => r.operation.origin === "model");
    const known = plan.duplicates.filter((d) => d.operation.origin === "model");
    expect(accepted.length + refused.length + known.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(REFUSAL_CODES).toContain(r.code);
      expect(r.why.trim()).not.toBe("");
    }
    // What was accepted holds up when checked again here: its citations name lines that exist,
    // and its text states no fact those lines do not hold.
    for (const o of accepted) {
      const cited = o.sources.map((ref) => {
        const lines = sources.get(ref.path)?.split("\n") ?? [];
        expect(ref.endLine, `${ref.path}:${ref.endLine}`).toBeLessThanOrEqual(lines.length);
        return lines.slice(ref.startLine - 1, ref.endLine).join("\n");
      });
      expect(missingFacts(factsOf(o.text), cited.join("\n")), o.text).toEqual([]);
    }
    // engram's own merge of the near-duplicate stands whatever the model said.
    expect(plan.operations.filter((o) => o.origin === "duplicates")).toMatchObject([
      { op: "MERGE", targets: [parseRef("MEMORY.md:5"), parseRef("MEMORY.md:6")] },
    ]);

    const applied = JSON.parse(await run("consolidate", "apply", "--json", ...NOW));
    expect(applied).toMatchObject({ outcome: "committed", reused: true, applyId: plan.passId });
    const after = await allFiles(ws);
    for (const [path, text] of Object.entries(LOGS)) expect(after.get(path)).toBe(text);
    const memory = after.get("MEMORY.md") ?? "";
    expect(memory).not.toContain("lin prefers advisory locks over Redis locks.");
    for (const r of refused) if (r.operation.text) expect(memory).not.toContain(r.operation.text);
    // No line of any source is lost: each is in a curated file, a log or the archive.
    const everything = [...after.values()].join("\n");
    for (const [path, text] of sources) {
      for (const l of text.split("\n")) {
        if (l.trim()) expect(everything.includes(l), `${path}: ${l}`).toBe(true);
      }
    }
    expect(after.get(plan.report)).toContain("model local/tiny-llama.gguf");

    // status shows the local model and what the pass spent (the apply reused the plan).
    const status = JSON.parse(await run("status", "--json")) as MemoryStatus;
    expect(status.llm.models[0]).toMatchObject({
      id: "local",
      model: "tiny-llama.gguf",
      primary: true,
      circuit: { state: "closed" },
    });
    expect(status.llm.spent).toMatchObject({
      inputTokens: plan.tokens.input,
      outputTokens: plan.tokens.output,
    });
    const text = await run("status");
    expect(text).toMatch(/^LLM {9}tokens spent: [\d,]+ in \/ [\d,]+ out in \d+ call\(s\)/m);
    expect(text).toContain(`primary   local/tiny-llama.gguf@${modelPath} — ok`);

    await run("consolidate", "undo");
    expectSameTree(await treeWithTimes(ws), before, "after undo");
  }, 120_000);

  it("an answer cut off at maxTokens is reported with the tokens it cost, and its notes wait", async () => {
    // Seed 1 loops inside a string until maxTokens; no retries, so the run makes one attempt.
    await workspace(1, { retry: { retries: 0 } });
    const plan = JSON.parse(await run("consolidate", "plan", "--json", ...NOW)) as PlanJson;
    expect(plan.modelError).toMatch(/^local: the answer was cut off at the token limit/);
    expect(plan.tokens).toMatchObject({ calls: 1, output: 256 });
    expect(plan.tokens.input).toBeGreaterThan(0);
    expect(plan.newMaterial.map((m) => [m.path, m.processed])).toEqual([
      ["memory/2026-03-01.md", false],
      ["memory/2026-03-02.md", false],
    ]);
    expect(plan.operations.map((o) => `${o.op} ${o.origin}`)).toEqual(["MERGE duplicates"]);
    const report = plan.diffs.find((d) => d.path === plan.report)?.diff ?? "";
    expect(report).toContain("+Left for the next pass (the model failed): memory/2026-03-01.md");
    expect(report).toContain(`+Model calls: 1, tokens sent ${plan.tokens.input}, received 256.`);
    const status = JSON.parse(await run("status", "--json")) as MemoryStatus;
    expect(status.llm.spent).toMatchObject({
      requests: 1,
      inputTokens: plan.tokens.input,
      outputTokens: 256,
    });
  }, 60_000);
});
