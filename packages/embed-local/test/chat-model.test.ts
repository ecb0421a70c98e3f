import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConfig, selectLanguageModels } from "@engram/core";
import { assertMatchesSchema, isModelError, type JsonSchema } from "@engram/core/driver";
import { LanguageModelChain } from "@engram/core/internal";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type LocalLanguageModel,
  type LocalLanguageModelOptions,
  localLanguageModel,
  localLanguageModelProvider,
  readModelHeader,
} from "../src/index.js";
import { writeTinyBertGguf } from "./fixtures/tiny-bert-gguf.js";
import { buildTinyLlamaGguf, writeTinyLlamaGguf } from "./fixtures/tiny-llama-gguf.js";
import { rejection } from "./helpers.js";

/**
 * The local language model end to end: node-llama-cpp loads a tiny llama model the test writes
 * (random weights, a SentencePiece vocabulary with byte fallback, a ChatML template), renders the
 * conversation with that template, and generates under a JSON-Schema grammar — so even a model
 * that knows nothing answers JSON that parses and matches the schema.
 */

/** What consolidation-like callers ask for, within what node-llama-cpp's grammar can express. */
const VERDICT: JsonSchema = {
  type: "object",
  properties: {
    keep: { type: "boolean" },
    kind: { enum: ["fact", "preference", "decision"] },
    tier: { anyOf: [{ const: "long" }, { const: "mid" }] },
    note: { type: "string", maxLength: 12 },
    tags: { type: "array", items: { enum: ["ops", "ui", "记忆"] }, maxItems: 2 },
  },
  required: ["keep", "kind", "tier", "note", "tags"],
  additionalProperties: false,
};

let dir: string;
let modelPath: string;
const open: LocalLanguageModel[] = [];
const make = async (options: Partial<LocalLanguageModelOptions> = {}) => {
  const model = await localLanguageModel({ modelPath, gpu: "cpu", threads: 1, ...options });
  open.push(model);
  return model;
};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "engram-local-llm-"));
  modelPath = await writeTinyLlamaGguf(dir);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("tiny llama fixture", () => {
  it("is deterministic, small, and a llama chat model by its header", async () => {
    const a = buildTinyLlamaGguf();
    expect(Buffer.from(a).equals(Buffer.from(buildTinyLlamaGguf()))).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(buildTinyLlamaGguf({ seed: 2 })))).toBe(false);
    expect(a.length).toBeLessThan(200 * 1024);
    expect(await readModelHeader(modelPath)).toMatchObject({
      architecture: "llama",
      dims: 32,
      contextLength: 1024,
      name: "tiny-llama",
    });
  });
});

// Text answers, the JSON answer and its parse, the maxTokens cut-off, aborts: the conformance kit.
describe("localLanguageModel", () => {
  it("answers JSON that matches the schema through the grammar, on the model's chat template", async () => {
    const model = await make();
    expect(model).toMatchObject({
      id: "local",
      model: "tiny-llama.gguf",
      endpoint: modelPath,
      architecture: "llama",
      contextTokens: 1024,
      loaded: false,
      loads: 0,
    });
    const result = await model.generate<Record<string, unknown>>({
      system: "Decide whether the line is worth keeping in long-term memory.",
      messages: [{ role: "user", content: "memory/2026-03-01.md:3 用户偏好深色模式" }],
      schema: VERDICT,
      maxTokens: 200,
    });
    expect(result.finishReason).toBe("stop");
    expect(() => JSON.parse(result.text)).not.toThrow();
    expect(result.value).toEqual(JSON.parse(result.text));
    assertMatchesSchema(result.value, VERDICT, "local");
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(model.loaded).toBe(true);

    // A second call, a conversation this time: the same weights, no second load.
    const again = await model.generate({
      messages: [
        { role: "user", content: "First line: deploy window is Tuesday." },
        { role: "assistant", content: "Noted." },
        { role: "user", content: "Keep it?" },
      ],
      schema: VERDICT,
      maxTokens: 200,
    });
    assertMatchesSchema(again.value, VERDICT, "local");
    expect(model.loads).toBe(1);
  });

  it("through core's chain: the checked value, the provider named, tokens counted in the run", async () => {
    const chain = new LanguageModelChain([await make()], {
      retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 },
      circuit: { failureThreshold: 3, cooldownMs: 1000, finalCooldownMs: 1000 },
    });
    const run = chain.run({ maxTokens: 5000 });
    const result = await run.generate({
      messages: [{ role: "user", content: "keep?" }],
      schema: VERDICT,
      maxTokens: 200,
    });
    expect(result.provider).toBe("local");
    expect(run.usage.requests).toBe(1);
    expect(run.budget.spent).toBe(result.usage.inputTokens + result.usage.outputTokens);
  });

  it("refuses a prompt that does not fit the context instead of cutting it", async () => {
    const model = await make({ contextSize: 128 });
    const error = await rejection(
      model.generate({ messages: [{ role: "user", content: "记忆 ".repeat(200) }], maxTokens: 16 }),
    );
    expect(isModelError(error)).toBe(true);
    expect(error).toMatchObject({ code: "MODEL_TOO_LONG", retryable: false });
    expect(String(error.message)).toMatch(/does not fit tiny-llama.gguf's 128-token context/);
  });

  it("refuses, before loading anything, what cannot be a chat model", async () => {
    const missing = await rejection(make({ modelPath: join(dir, "nope.gguf") }));
    expect(missing).toMatchObject({ code: "MODEL_BAD_INPUT" });
    expect(String(missing.message)).toContain("model file not found");
    const text = join(dir, "notes.gguf");
    await writeFile(text, "not a model");
    expect(await rejection(make({ modelPath: text }))).toMatchObject({ code: "MODEL_BAD_INPUT" });
    const bert = await writeTinyBertGguf(dir);
    const embedding = await rejection(make({ modelPath: bert }));
    expect(String(embedding.message)).toContain("is a bert embedding model");
    const tooBig = await rejection(make({ contextSize: 4096 }));
    expect(String(tooBig.message)).toContain("exceeds the training context");
    expect(await rejection(make({ modelPath: "hf:org/model:Q4" }))).toMatchObject({
      code: "CONFIG_INVALID",
    });
  });

  it("rejects calls after close with CLOSED", async () => {
    const model = await make();
    await model.close();
    expect(
      await rejection(model.generate({ messages: [{ role: "user", content: "x" }] })),
    ).toMatchObject({
      code: "CLOSED",
    });
  });
});

describe("localLanguageModelProvider", () => {
  it("is chosen by its own modelPath, never the embedding model's", async () => {
    const registry = { local: async () => localLanguageModelProvider };
    const auto = resolveConfig({ llm: { provider: "auto" } }).llm;
    const embeddingOnly = await selectLanguageModels(auto, registry, {
      ENGRAM_LOCAL_MODEL_PATH: modelPath,
    });
    expect(embeddingOnly.models).toEqual([]);
    expect(embeddingOnly.notes[0]).toMatch(/^local: .*modelPath is not set/);
    const chosen = await selectLanguageModels(auto, registry, {
      ENGRAM_LLM_LOCAL_MODEL_PATH: modelPath,
      ENGRAM_LOCAL_THREADS: "1",
    });
    const model = chosen.models[0] as LocalLanguageModel;
    open.push(model);
    expect(model).toMatchObject({ id: "local", path: modelPath, loaded: false });
    expect(
      await localLanguageModelProvider.check({ modelPath: join(dir, "nope.gguf") }),
    ).toMatchObject({
      ok: false,
    });
  });
});
