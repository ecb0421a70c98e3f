import { resolveConfig, selectLanguageModels } from "@engram/core";
import { isModelError, type JsonSchema, type ModelError } from "@engram/core/driver";
import { LanguageModelChain } from "@engram/core/internal";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type GeminiLanguageModelOptions,
  geminiLanguageModel,
  geminiLanguageModelProvider,
} from "../src/index.js";
import { generateAnswer, type WireGenerateBody } from "./gemini-generate-wire.js";
import {
  type GeminiWireServer,
  invalidArgument,
  perDayQuota,
  perMinuteLimit,
  startGeminiWireServer,
  type WireReply,
} from "./gemini-wire-server.js";

const FACTS: JsonSchema = {
  type: "object",
  properties: {
    facts: {
      type: "array",
      items: {
        type: "object",
        properties: { text: { type: "string" }, source: { type: "string" } },
        required: ["text", "source"],
      },
    },
  },
  required: ["facts"],
};
const FACTS_VALUE = { facts: [{ text: "用户偏好深色模式", source: "memory/2026-03-01.md:3-3" }] };

let server: GeminiWireServer;
beforeEach(async () => {
  server = await startGeminiWireServer();
});
afterEach(() => server.close());

const make = (options: GeminiLanguageModelOptions = {}) =>
  geminiLanguageModel({ apiKey: server.apiKey, baseUrl: server.url, ...options });
const generateRequests = () => server.requests.filter((r) => r.url.includes(":generateContent"));
const lastBody = () => generateRequests().at(-1)?.body as WireGenerateBody;

describe("geminiLanguageModel against the Gemini API's wire format", () => {
  it("asks for JSON matching the schema and returns the parsed value and usage", async () => {
    server.queue(generateAnswer(JSON.stringify(FACTS_VALUE), { thoughtsTokens: 12 }));
    const model = await make({ thinkingBudget: 512 });
    expect(model).toMatchObject({ id: "gemini", model: "gemini-2.5-flash", endpoint: server.url });
    const result = await model.generate({
      system: "Extract lasting facts with their sources.",
      messages: [
        { role: "user", content: "memory/2026-03-01.md:3 用户偏好深色模式" },
        { role: "assistant", content: "Noted." },
        { role: "user", content: "Now as JSON." },
      ],
      schema: FACTS,
      maxTokens: 400,
      temperature: 0,
    });
    expect(result.value).toEqual(FACTS_VALUE);
    expect(result.finishReason).toBe("stop");
    expect(result.model).toBe("gemini-2.5-flash");
    // Thinking tokens are billed as output.
    expect(result.usage.outputTokens).toBe(Math.ceil(JSON.stringify(FACTS_VALUE).length / 4) + 12);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    const [request] = generateRequests();
    expect(request?.url).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(request?.headers["x-goog-api-key"]).toBe(server.apiKey);
    // What the SDK really sent.
    expect(request?.body).toEqual({
      contents: [
        { role: "user", parts: [{ text: "memory/2026-03-01.md:3 用户偏好深色模式" }] },
        { role: "model", parts: [{ text: "Noted." }] },
        { role: "user", parts: [{ text: "Now as JSON." }] },
      ],
      systemInstruction: {
        role: "user",
        parts: [{ text: "Extract lasting facts with their sources." }],
      },
      generationConfig: {
        maxOutputTokens: 400,
        temperature: 0,
        responseMimeType: "application/json",
        responseJsonSchema: FACTS,
        thinkingConfig: { thinkingBudget: 512 },
      },
    });
  });

  it("answers plain text without a schema, with no generationConfig", async () => {
    const model = await make();
    const plain = await model.generate({ messages: [{ role: "user", content: "你好" }] });
    expect(plain).toMatchObject({ text: "You said: 你好", finishReason: "stop" });
    expect(lastBody().generationConfig ?? {}).toEqual({});
  });
});

// A bad key, a 500, timeouts, HTML bodies, schema mismatches and cut-off JSON: the conformance kit.
describe("failures are ModelErrors, one request each", () => {
  async function failure(
    reply: WireReply | ((r: never) => WireReply) | undefined,
    options: GeminiLanguageModelOptions = {},
  ): Promise<ModelError> {
    if (reply) server.queue(reply as WireReply);
    const model = await make(options);
    const error = await model
      .generate({ messages: [{ role: "user", content: "x" }], schema: FACTS })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    if (!isModelError(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
    expect(generateRequests()).toHaveLength(1);
    expect(error.message).not.toContain(server.apiKey);
    return error as ModelError;
  }

  it("a per-minute limit → MODEL_RATE_LIMIT after RetryInfo's delay; a daily quota → MODEL_QUOTA", async () => {
    expect(await failure(perMinuteLimit("7s"))).toMatchObject({
      code: "MODEL_RATE_LIMIT",
      retryAfterMs: 7000,
    });
    server.requests.length = 0;
    expect(await failure(perDayQuota())).toMatchObject({ code: "MODEL_QUOTA", retryable: false });
  });

  it("a prompt over the context → MODEL_TOO_LONG; an unknown model → MODEL_BAD_INPUT", async () => {
    const tooLong = invalidArgument(
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    );
    expect(await failure(tooLong)).toMatchObject({ code: "MODEL_TOO_LONG" });
    server.requests.length = 0;
    const unknown = await failure(undefined, { model: "gemini-9-ultra" });
    expect(unknown).toMatchObject({ code: "MODEL_BAD_INPUT", status: 404 });
  });

  it("a hang-up → MODEL_NETWORK", async () => {
    expect(await failure({ status: 200, hangUp: true })).toMatchObject({ code: "MODEL_NETWORK" });
  });

  it("prose → MODEL_BAD_RESPONSE with the tokens it cost; a blocked prompt → MODEL_BAD_INPUT", async () => {
    const prose = await failure(generateAnswer("Here you go: 用户偏好深色模式"));
    expect(prose.message).toContain("is not JSON");
    expect(prose.usage?.outputTokens).toBeGreaterThan(0);
    server.requests.length = 0;
    const blocked = await failure(generateAnswer(undefined, { blockReason: "PROHIBITED_CONTENT" }));
    expect(blocked).toMatchObject({ code: "MODEL_BAD_INPUT", retryable: false });
    expect(blocked.message).toContain("blocked (PROHIBITED_CONTENT)");
  });
});

it("core's chain retries a rate limit and a mismatching answer, then returns the checked value", async () => {
  server.queue(
    perMinuteLimit("0s"),
    generateAnswer(JSON.stringify({ facts: [{ text: "no source" }] })),
    generateAnswer(JSON.stringify(FACTS_VALUE)),
  );
  const chain = new LanguageModelChain([await make()], {
    retry: { retries: 3, minDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 1000 },
    circuit: { failureThreshold: 3, cooldownMs: 1000, finalCooldownMs: 1000 },
  });
  const result = await chain.generate({
    messages: [{ role: "user", content: "x" }],
    schema: FACTS,
  });
  expect(result).toMatchObject({ value: FACTS_VALUE, provider: "gemini" });
  expect(generateRequests()).toHaveLength(3);
  expect(chain.primary.stats).toMatchObject({ requests: 3, retries: 2 });
});

it("is chosen from config and environment; ENGRAM_GEMINI_MODEL (embeddings) is not its model", async () => {
  const llm = resolveConfig({ llm: { provider: "auto" } }).llm;
  const { models, notes } = await selectLanguageModels(
    llm,
    { gemini: async () => geminiLanguageModelProvider },
    {
      GEMINI_API_KEY: server.apiKey,
      ENGRAM_GEMINI_BASE_URL: server.url,
      ENGRAM_GEMINI_MODEL: "gemini-embedding-001",
    },
  );
  expect(notes).toEqual([
    "local: driver not installed (@engram/embed-local)",
    "openai: driver not installed (@engram/embed-openai)",
  ]);
  expect(models[0]).toMatchObject({
    id: "gemini",
    model: "gemini-2.5-flash",
    endpoint: server.url,
  });
  expect(geminiLanguageModelProvider.check({})).toMatchObject({ ok: false });
});
