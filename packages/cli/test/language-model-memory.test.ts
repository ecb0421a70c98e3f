import { createMemory, type Memory, ModelError } from "@engram/core";
import { createScriptedLanguageModel } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

const FAST = {
  retry: { retries: 1, minDelayMs: 1, maxDelayMs: 2 },
  circuit: { failureThreshold: 3, cooldownMs: 60_000, finalCooldownMs: 600_000 },
};
const ask = (content: string) => ({ messages: [{ role: "user" as const, content }] });

/**
 * `createMemory` with language models over a real SQLite index: `memory.languageModel` is the
 * resilient chain, `status().llm` reports each model's health and the tokens spent, and both
 * survive the process (the store's meta), as the embedders' health does.
 */
describe("language models in createMemory (real SQLite)", () => {
  let ws: string;
  const open: Memory[] = [];
  const memoryOf = async (options: Partial<Parameters<typeof createMemory>[0]> = {}) => {
    const memory = await createMemory({
      workspace: ws,
      store: sqliteStore(),
      config: { llm: { ...FAST, maxTokensPerRun: 5000 } },
      ...options,
    });
    open.push(memory);
    return memory;
  };
  beforeEach(async () => {
    ws = await tempDir();
    await writeFiles(ws, { "MEMORY.md": "# Memory\n\n用户偏好：深色模式\n" });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
    await removeDir(ws);
  });

  it("has no model unless one is given or configured, and says so", async () => {
    const memory = await memoryOf();
    expect(memory.languageModel).toBeNull();
    const { llm } = await memory.status();
    expect(llm).toEqual({
      models: [],
      notes: ["no language model configured (llm.provider is none)"],
      spent: { inputTokens: 0, outputTokens: 0, requests: 0 },
      maxTokensPerRun: 5000,
    });
  });

  it("adds up tokens across processes and reports them in status", async () => {
    const usage = { inputTokens: 120, outputTokens: 30 };
    const model = () =>
      createScriptedLanguageModel({
        id: "openai",
        model: "gpt-x",
        script: [{ text: "ok", usage }],
      });
    const first = await memoryOf({ languageModel: model() });
    const chain = first.languageModel;
    expect(chain?.maxTokensPerRun).toBe(5000);
    await chain?.generate(ask("总结今天的日志"));
    const run = chain?.run();
    await run?.generate(ask("again"));
    expect(run?.usage).toEqual({ ...usage, requests: 1 });
    await first.close();

    const second = await memoryOf({ languageModel: model() });
    await second.languageModel?.generate(ask("third"));
    const { llm } = await second.status();
    expect(llm.spent).toEqual({ inputTokens: 360, outputTokens: 90, requests: 3 });
    expect(llm.models).toEqual([
      expect.objectContaining({
        id: "openai",
        model: "gpt-x",
        endpoint: null,
        primary: true,
        circuit: expect.objectContaining({ state: "closed" }),
        stats: expect.objectContaining({ requests: 1, inputTokens: 120 }),
        spent: { inputTokens: 360, outputTokens: 90, requests: 3 },
      }),
    ]);
  });

  it("keeps a paused model paused in the next process, and falls back meanwhile", async () => {
    const broken = createScriptedLanguageModel({
      id: "openai",
      model: "gpt-x",
      script: [new ModelError("quota", "openai", "You exceeded your current quota")],
    });
    const fallback = () =>
      createScriptedLanguageModel({ id: "local", model: "tiny", script: ["ok"] });
    const first = await memoryOf({ languageModel: [broken, fallback()] });
    await expect(first.languageModel?.generate(ask("x"))).resolves.toMatchObject({
      provider: "local",
    });
    expect(broken.requests).toHaveLength(1);
    await first.close();

    const again = createScriptedLanguageModel({ id: "openai", model: "gpt-x", script: ["fine"] });
    const second = await memoryOf({ languageModel: [again, fallback()] });
    await expect(second.languageModel?.generate(ask("y"))).resolves.toMatchObject({
      provider: "local",
    });
    expect(again.requests).toHaveLength(0);
    const [primary, secondary] = (await second.status()).llm.models;
    expect(primary?.circuit).toMatchObject({ state: "open", lastErrorCode: "MODEL_QUOTA" });
    expect(secondary?.circuit.state).toBe("closed");
  });

  it("chooses models from a registry by the config", async () => {
    const memory = await memoryOf({
      config: { llm: { provider: "scripted", model: "m-1" } },
      languageModels: {
        scripted: async () => ({
          id: "scripted",
          settings: { model: { type: "string", scoped: true, description: "model" } },
          check: () => ({ ok: true }),
          create: async (s) =>
            createScriptedLanguageModel({ model: String(s.model), script: ["hi"] }),
        }),
      },
    });
    expect(memory.languageModel?.model).toBe("m-1");
  });
});
