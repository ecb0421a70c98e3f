import { describe, expect, it } from "vitest";
import { LanguageModelChain } from "../../src/model/chain.js";
import { ModelError } from "../../src/model/errors.js";
import type { GenerateRequest } from "../../src/model/language-model.js";
import { estimateInputTokens } from "../../src/model/usage.js";
import {
  createScriptedLanguageModel,
  type ScriptedAnswer,
} from "../../src/testing/scripted-language-model.js";

const retry = { retries: 2, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 1000 };
const circuit = { failureThreshold: 2, cooldownMs: 60_000, finalCooldownMs: 600_000 };
const noWait = { sleep: async () => {} };

function chainOf(
  scripts: Array<ScriptedAnswer[] | ((r: GenerateRequest, n: number) => ScriptedAnswer)>,
  options: { maxTokensPerRun?: number; now?: () => number } = {},
) {
  const models = scripts.map((script, i) =>
    createScriptedLanguageModel({ id: `m${i}`, model: `model-${i}`, script }),
  );
  const chain = new LanguageModelChain(models, { retry, circuit, hooks: noWait, ...options });
  return { models, chain };
}

const ask = (content: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [{ role: "user", content }],
  ...extra,
});

const factSchema = {
  type: "object",
  properties: {
    facts: {
      type: "array",
      items: {
        type: "object",
        properties: { text: { type: "string" }, source: { type: "string" } },
        required: ["text", "source"],
        additionalProperties: false,
      },
    },
  },
  required: ["facts"],
  additionalProperties: false,
} as const;

describe("ResilientLanguageModel (through the chain)", () => {
  it("retries only retryable failures and counts requests, retries and tokens", async () => {
    const { models, chain } = chainOf([
      [
        new ModelError("rate_limit", "m0", "slow down"),
        new ModelError("server", "m0", "500"),
        "ok",
      ],
    ]);
    const result = await chain.generate(ask("hello"));
    expect(result).toMatchObject({ text: "ok", finishReason: "stop", provider: "m0" });
    expect(models[0]?.requests).toHaveLength(3);
    const stats = chain.primary.stats;
    expect(stats).toMatchObject({ requests: 3, retries: 2, failures: 0 });
    expect(stats.inputTokens).toBe(result.usage.inputTokens);
    expect(chain.primary.circuit().state).toBe("closed");
  });

  it("never retries a used-up quota: one request, and the model is paused", async () => {
    let now = 1_000;
    const { models, chain } = chainOf([[new ModelError("quota", "m0", "insufficient_quota")]], {
      now: () => now,
    });
    await expect(chain.generate(ask("hello"))).rejects.toMatchObject({ code: "MODEL_QUOTA" });
    expect(models[0]?.requests).toHaveLength(1);
    expect(chain.primary.circuit()).toMatchObject({ state: "open", failures: 1 });
    await expect(chain.generate(ask("again"))).rejects.toMatchObject({
      code: "MODEL_UNAVAILABLE",
    });
    expect(models[0]?.requests).toHaveLength(1);
    now += 600_001; // after the final cool-down, one trial call goes out
    await expect(chain.generate(ask("later"))).rejects.toMatchObject({ code: "MODEL_QUOTA" });
    expect(models[0]?.requests).toHaveLength(2);
  });

  it("parses and checks structured answers against the schema; a mismatch is retried", async () => {
    const good = { facts: [{ text: "用户偏好深色模式", source: "memory/2026-03-01.md:3-3" }] };
    const { models, chain } = chainOf([
      [
        { value: { facts: [{ text: "no source" }] } },
        { text: "```json\nnot json\n```" },
        { text: `\`\`\`json\n${JSON.stringify(good)}\n\`\`\`` },
      ],
    ]);
    const result = await chain.generate<typeof good>(
      ask("extract", { schema: factSchema, schemaName: "facts" }),
    );
    expect(result.value).toEqual(good);
    expect(models[0]?.requests).toHaveLength(3);
    expect(chain.primary.stats.retries).toBe(2);
  });

  it("names where the answer fails the schema when every attempt does", async () => {
    const { chain } = chainOf([[{ value: { facts: [{ text: 3, source: "x" }] } }]]);
    const error = await chain
      .generate(ask("extract", { schema: factSchema, schemaName: "facts" }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MODEL_BAD_RESPONSE" });
    expect((error as Error).message).toContain('schema "facts"');
    expect((error as Error).message).toContain("/facts/0/text");
    expect(chain.primary.stats).toMatchObject({ requests: 3, failures: 1 });
  });

  it("says when JSON was cut off at the token limit", async () => {
    const { chain } = chainOf([[{ text: '{"facts": [', finishReason: "length" }]]);
    await expect(chain.generate(ask("x", { schema: factSchema }))).rejects.toThrow(/cut off/);
  });

  it("retries an answer cut off at the token limit with twice the tokens, within the context", async () => {
    const whole = { facts: [{ text: "部署窗口是周二", source: "memory/2026-03-01.md:4-4" }] };
    // A deterministic model: the same request gives the same cut-off answer; 400 tokens suffice.
    const { models, chain } = chainOf([
      (request) =>
        (request.maxTokens ?? 0) >= 400
          ? { value: whole }
          : { text: '{"facts": [{"text": "部署窗口', finishReason: "length" },
    ]);
    const result = await chain.generate(ask("extract", { schema: factSchema, maxTokens: 100 }));
    expect(result.value).toEqual(whole);
    expect(models[0]?.requests.map((r) => r.maxTokens)).toEqual([100, 200, 400]);

    // A context window caps the growth; an answer that fails for another reason keeps its size.
    const capped = createScriptedLanguageModel({
      id: "m0",
      contextTokens: 300,
      script: () => ({ text: '{"facts": [', finishReason: "length" }),
    });
    const small = new LanguageModelChain([capped], { retry, circuit, hooks: noWait });
    await expect(small.generate(ask("x", { schema: factSchema, maxTokens: 100 }))).rejects.toThrow(
      /cut off/,
    );
    const sizes = capped.requests.map((r) => r.maxTokens ?? 0);
    expect(sizes[0]).toBe(100);
    expect(sizes[1]).toBe(200);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(300);
    const { models: plain, chain: again } = chainOf([[{ text: "not json" }]]);
    await expect(again.generate(ask("x", { schema: factSchema, maxTokens: 100 }))).rejects.toThrow(
      /not JSON/,
    );
    expect(plain[0]?.requests.map((r) => r.maxTokens)).toEqual([100, 100, 100]);
  });

  it("estimates usage when the provider reports none", async () => {
    const { chain } = chainOf([[{ text: "四个汉字", usage: null }]]);
    const request = ask("长期记忆存储用户偏好");
    const result = await chain.generate(request);
    expect(result.usage).toEqual({
      inputTokens: estimateInputTokens(request),
      outputTokens: 4,
    });
  });
});

describe("LanguageModelChain fallback", () => {
  it("hands a final failure over to the next model, and skips a paused one", async () => {
    const { models, chain } = chainOf([[new ModelError("auth", "m0", "bad key")], ["from m1"]]);
    const first = await chain.generate(ask("hi"));
    expect(first).toMatchObject({ text: "from m1", provider: "m1", model: "model-1" });
    expect(models.map((m) => m.requests.length)).toEqual([1, 1]);
    await chain.generate(ask("again"));
    // m0's circuit is open after the auth failure: it is not asked again.
    expect(models.map((m) => m.requests.length)).toEqual([1, 2]);
    expect(chain.available().map((m) => m.id)).toEqual(["m1"]);
  });

  it("hands over after the retries of a retryable failure run out", async () => {
    const { models, chain } = chainOf([[new ModelError("timeout", "m0", "slow")], ["ok"]]);
    await expect(chain.generate(ask("hi"))).resolves.toMatchObject({ provider: "m1" });
    expect(models[0]?.requests).toHaveLength(3);
  });

  it("does not hand over an abort or a bug", async () => {
    const { models, chain } = chainOf([[new TypeError("bug in a driver")], ["ok"]]);
    await expect(chain.generate(ask("hi"))).rejects.toThrow("bug in a driver");
    expect(models[1]?.requests).toHaveLength(0);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(chain.generate(ask("hi", { signal: controller.signal }))).rejects.toThrow("stop");
  });

  it("throws the last model's error when every model fails", async () => {
    const { chain } = chainOf([
      [new ModelError("auth", "m0", "bad key")],
      [new ModelError("quota", "m1", "no credit")],
    ]);
    await expect(chain.generate(ask("hi"))).rejects.toMatchObject({ code: "MODEL_QUOTA" });
    await expect(chain.generate(ask("hi"))).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE" });
  });
});

describe("a run's token budget", () => {
  it("refuses a call that would exceed it, without sending it", async () => {
    const { models, chain } = chainOf([
      [{ text: "ok", usage: { inputTokens: 40, outputTokens: 10 } }],
    ]);
    const run = chain.run({ maxTokens: 100 });
    await run.generate(ask("a short question", { maxTokens: 20 }));
    expect(run.usage).toEqual({ inputTokens: 40, outputTokens: 10, requests: 1 });
    expect(run.budget.spent).toBe(50);
    // 50 left: a call that may need more is refused and never sent.
    const error = await run.generate(ask("another", { maxTokens: 60 })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MODEL_BUDGET" });
    expect((error as Error).message).toMatch(/only 50 of this run's 100/);
    expect(models[0]?.requests).toHaveLength(1);
    // The refusal is not the provider's fault: its circuit stays closed, no fallback is asked.
    expect(chain.primary.circuit()).toMatchObject({ state: "closed", failures: 0 });
  });

  it("caps the answer at what is left when the call names no maxTokens", async () => {
    const { models, chain } = chainOf([["ok"]]);
    const run = chain.run({ maxTokens: 500 });
    const request = ask("question");
    await run.generate(request);
    expect(models[0]?.requests[0]?.maxTokens).toBe(500 - estimateInputTokens(request));
  });

  it("counts tokens of failed attempts the provider answered, and checks the budget per attempt", async () => {
    const answer = { value: { wrong: true }, usage: { inputTokens: 30, outputTokens: 10 } };
    const { models, chain } = chainOf([[answer], ["never"]]);
    const request = ask("x", { schema: factSchema, maxTokens: 10 });
    const worstCase = estimateInputTokens(request) + 10;
    // Room for the worst case after two attempts of 40 tokens each, not after three.
    const run = chain.run({ maxTokens: worstCase + 79 });
    const error = await run.generate(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MODEL_BUDGET" });
    expect(models[0]?.requests).toHaveLength(2);
    expect(models[1]?.requests).toHaveLength(0);
    expect(run.usage).toEqual({ inputTokens: 60, outputTokens: 20, requests: 2 });
    expect(chain.primary.circuit().failures).toBe(1);
  });

  it("defaults to llm.maxTokensPerRun, and counts without a cap", async () => {
    const { chain } = chainOf([["ok"]], { maxTokensPerRun: 1234 });
    expect(chain.run().budget.limit).toBe(1234);
    const uncapped = chainOf([["ok"]]).chain.run();
    await uncapped.generate(ask("hello"));
    expect(uncapped.budget.remaining).toBeUndefined();
    expect(uncapped.budget.spent).toBeGreaterThan(0);
  });
});
