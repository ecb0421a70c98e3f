import { inspect } from "node:util";
import { resolveConfig, selectLanguageModels } from "@engram/core";
import {
  type GenerateRequest,
  isModelError,
  type JsonSchema,
  type ModelError,
} from "@engram/core/driver";
import { LanguageModelChain } from "@engram/core/internal";
import { afterEach, describe, expect, it } from "vitest";
import { resolveChatOptions } from "../src/chat-options.js";
import {
  isStrictSchema,
  type OpenAILanguageModelOptions,
  openaiLanguageModel,
  openaiLanguageModelProvider,
} from "../src/index.js";
import { API_KEY } from "./helpers.js";
import type { ChatAnswer, ChatBehaviour, ChatCompletionsBody } from "./openai-chat-wire.js";
import {
  contextLengthExceeded,
  dropConnection,
  insufficientQuota,
  type OpenAIWireServer,
  type RecordedRequest,
  type Responder,
  rateLimited,
  startOpenAIWireServer,
  type WireServerOptions,
} from "./openai-wire-server.js";

/** What consolidation asks for: facts with their sources (strict-mode shape). */
const FACTS: JsonSchema = {
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
};
const FACTS_VALUE = { facts: [{ text: "用户偏好深色模式", source: "memory/2026-03-01.md:3-3" }] };

describe("openaiLanguageModel against OpenAI's wire format", () => {
  let server: OpenAIWireServer;
  let answers: Array<ChatAnswer | string>;
  const start = async (
    options: WireServerOptions = { apiKey: API_KEY },
    chat: ChatBehaviour = {},
  ) => {
    answers = [];
    server = await startOpenAIWireServer({
      ...options,
      chat: { ...chat, answer: () => answers.shift() },
    });
    return server;
  };
  const make = (options: OpenAILanguageModelOptions = {}) =>
    openaiLanguageModel({ apiKey: API_KEY, baseUrl: server.baseUrl, ...options });
  const chatRequests = (): RecordedRequest[] =>
    server.requests.filter((r) => r.path === "/chat/completions");
  const lastBody = () => chatRequests().at(-1)?.body as ChatCompletionsBody;
  afterEach(() => server?.close());

  it("asks for Structured Outputs and returns the parsed value, usage and model", async () => {
    await start();
    answers.push(JSON.stringify(FACTS_VALUE));
    // api.openai.com's default field (this server stands in for it at a local URL).
    const model = await make({ maxTokensField: "max_completion_tokens" });
    expect(model).toMatchObject({ id: "openai", model: "gpt-4.1-mini", endpoint: server.baseUrl });
    const result = await model.generate({
      system: "Extract lasting facts, each with its source.",
      messages: [{ role: "user", content: "memory/2026-03-01.md:3 用户偏好深色模式" }],
      schema: FACTS,
      schemaName: "facts",
      maxTokens: 300,
      temperature: 0,
    });
    expect(result.value).toEqual(FACTS_VALUE);
    expect(result.finishReason).toBe("stop");
    expect(result.model).toBe("gpt-4.1-mini-2025-04-14");
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBe(Math.ceil(JSON.stringify(FACTS_VALUE).length / 4));
    // What the SDK really sent.
    const [request] = chatRequests();
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.body).toEqual({
      model: "gpt-4.1-mini",
      messages: [
        { role: "system", content: "Extract lasting facts, each with its source." },
        { role: "user", content: "memory/2026-03-01.md:3 用户偏好深色模式" },
      ],
      max_completion_tokens: 300,
      temperature: 0,
      response_format: {
        type: "json_schema",
        json_schema: { name: "facts", schema: FACTS, strict: true },
      },
    });
  });

  it("caps answers with max_completion_tokens on api.openai.com, max_tokens elsewhere", () => {
    const field = (baseUrl?: string) =>
      resolveChatOptions({ apiKey: API_KEY, ...(baseUrl ? { baseUrl } : {}) }).maxTokensField;
    expect(field()).toBe("max_completion_tokens");
    expect(field("http://localhost:11434/v1")).toBe("max_tokens");
    expect(field("https://openrouter.ai/api/v1")).toBe("max_tokens");
    expect(() =>
      resolveChatOptions({ baseUrl: "http://x/v1", maxTokensField: "max" as never }),
    ).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        hint: expect.stringContaining("llm.providers.openai.maxTokensField"),
      }),
    );
    expect(() => resolveChatOptions({})).toThrow(/no API key for api.openai.com/);
  });

  it("sends strict: false for a schema strict mode would reject, and a valid schema name", async () => {
    await start();
    const loose = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      required: ["a"],
    };
    expect(isStrictSchema(loose)).toBe(false);
    expect(isStrictSchema(FACTS)).toBe(true);
    const result = await (await make()).generate({
      messages: [{ role: "user", content: "x" }],
      schema: loose,
      schemaName: "整理 facts!",
    });
    expect(result.value).toEqual({ a: "text" });
    expect(lastBody().response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "_facts_", schema: loose, strict: false },
    });
  });

  it("plain text without a schema: no response_format, no value", async () => {
    await start();
    const result = await (await make()).generate({ messages: [{ role: "user", content: "你好" }] });
    expect(result).toMatchObject({ text: "You said: 你好", finishReason: "stop" });
    expect(result.value).toBeUndefined();
    expect(lastBody()).toEqual({
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: "你好" }],
    });
  });

  describe("OpenAI-compatible servers by baseUrl", () => {
    it("Ollama: no key, its model names, max_tokens, json_schema", async () => {
      await start({}, { models: ["qwen3:8b"] });
      const model = await openaiLanguageModel({ baseUrl: server.baseUrl, model: "qwen3:8b" });
      const result = await model.generate({
        messages: [{ role: "user", content: "facts?" }],
        schema: FACTS,
        maxTokens: 200,
      });
      expect(result.value).toEqual({ facts: [{ text: "text", source: "text" }] });
      const body = lastBody();
      expect(body).toMatchObject({ model: "qwen3:8b", max_tokens: 200 });
      expect(body.max_completion_tokens).toBeUndefined();
      expect(chatRequests()[0]?.headers.authorization).toBe("Bearer engram-no-key");
    });

    it("LM Studio and vLLM: json_schema, and a key when the server has one (vLLM --api-key)", async () => {
      await start({ apiKey: "token-abc123" }, { models: ["Qwen/Qwen3-8B"] });
      const model = await openaiLanguageModel({
        apiKey: "token-abc123",
        baseUrl: server.baseUrl,
        model: "Qwen/Qwen3-8B",
        maxTokensField: "max_completion_tokens",
      });
      await model.generate({
        messages: [{ role: "user", content: "x" }],
        schema: FACTS,
        maxTokens: 64,
      });
      expect(lastBody()).toMatchObject({
        max_completion_tokens: 64,
        response_format: { type: "json_schema" },
      });
    });

    it("OpenRouter: vendor/model names and its attribution headers", async () => {
      await start({ apiKey: API_KEY }, { models: ["openai/gpt-4.1-mini"] });
      const model = await make({
        model: "openai/gpt-4.1-mini",
        headers: { "HTTP-Referer": "https://example.org/engram", "X-Title": "engram" },
      });
      await model.generate({ messages: [{ role: "user", content: "x" }], schema: FACTS });
      const [request] = chatRequests();
      expect(request?.headers["http-referer"]).toBe("https://example.org/engram");
      expect(request?.headers["x-title"]).toBe("engram");
      expect(lastBody().model).toBe("openai/gpt-4.1-mini");
    });

    it("servers without json_schema: JSON mode or the prompt carry the schema", async () => {
      await start({}, { models: ["llama3.2"] });
      answers.push(
        JSON.stringify(FACTS_VALUE),
        `\`\`\`json\n${JSON.stringify(FACTS_VALUE)}\n\`\`\``,
      );
      const jsonMode = await openaiLanguageModel({
        baseUrl: server.baseUrl,
        model: "llama3.2",
        structuredOutput: "json_object",
      });
      const request = {
        system: "Be brief.",
        messages: [{ role: "user" as const, content: "x" }],
        schema: FACTS,
      };
      expect((await jsonMode.generate(request)).value).toEqual(FACTS_VALUE);
      expect(lastBody().response_format).toEqual({ type: "json_object" });
      expect(lastBody().messages?.[0]?.content).toContain(JSON.stringify(FACTS));
      expect(lastBody().messages?.[0]?.content).toMatch(/^Be brief\.\n\n/);
      const promptOnly = await openaiLanguageModel({
        baseUrl: server.baseUrl,
        model: "llama3.2",
        structuredOutput: "prompt",
      });
      expect((await promptOnly.generate(request)).value).toEqual(FACTS_VALUE);
      expect(lastBody().response_format).toBeUndefined();
    });
  });

  // 500s, timeouts, HTML bodies, prose, schema mismatches and cut-off JSON: the conformance kit.
  describe("failures are ModelErrors, after exactly one request", () => {
    async function failWith(
      responder: Responder | undefined,
      options: OpenAILanguageModelOptions = {},
      extra: Partial<GenerateRequest> = {},
    ) {
      if (responder) server.once("POST /chat/completions", responder);
      const model = await make(options);
      const error = await model
        .generate({ messages: [{ role: "user", content: "x" }], schema: FACTS, ...extra })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      if (!isModelError(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
      expect(chatRequests()).toHaveLength(1);
      expect(error.provider).toBe("openai");
      expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
      return error as ModelError;
    }

    it("401 → MODEL_AUTH with the key scrubbed", async () => {
      await start();
      const error = await failWith(undefined, { apiKey: `${API_KEY}-revoked` });
      expect(error).toMatchObject({ code: "MODEL_AUTH", kind: "auth", status: 401 });
      expect(error.message).toContain("Incorrect API key provided: sk-***");
    });

    it("429 rate limit → MODEL_RATE_LIMIT with Retry-After; insufficient_quota → MODEL_QUOTA", async () => {
      await start();
      const limited = await failWith(rateLimited({ retryAfterMs: "800" }));
      expect(limited).toMatchObject({
        code: "MODEL_RATE_LIMIT",
        retryable: true,
        retryAfterMs: 800,
      });
      server.requests.length = 0;
      const quota = await failWith(insufficientQuota());
      expect(quota).toMatchObject({ code: "MODEL_QUOTA", retryable: false });
    });

    it("400 context length → MODEL_TOO_LONG; unknown model → MODEL_BAD_INPUT", async () => {
      await start();
      expect(await failWith(contextLengthExceeded(130_000))).toMatchObject({
        code: "MODEL_TOO_LONG",
      });
      server.requests.length = 0;
      expect(await failWith(undefined, { model: "gpt-9-imaginary" })).toMatchObject({
        code: "MODEL_BAD_INPUT",
        status: 404,
      });
    });

    it("a strict schema the API refuses, or max_tokens to a reasoning model → MODEL_BAD_INPUT", async () => {
      await start();
      // What OpenAI answers when strict mode meets an open object: the driver never sends one
      // (strict: false instead); a server that rejects anyway is a final bad_input.
      server.once("POST /chat/completions", (req, _res, next) => {
        (req.body as ChatCompletionsBody).response_format = {
          type: "json_schema",
          json_schema: { name: "x", schema: { type: "object", properties: {} }, strict: true },
        };
        return next();
      });
      const invalid = await failWith(undefined);
      expect(invalid).toMatchObject({ code: "MODEL_BAD_INPUT", status: 400 });
      expect(invalid.message).toContain("'additionalProperties' is required to be supplied");
      server.requests.length = 0;
      const reasoning = await failWith(
        undefined,
        { model: "o4-mini", maxTokensField: "max_tokens" },
        { maxTokens: 100 },
      );
      expect(reasoning).toMatchObject({ code: "MODEL_BAD_INPUT", status: 400 });
      expect(reasoning.message).toContain("Use 'max_completion_tokens' instead");
    });

    it("a dropped connection → MODEL_NETWORK", async () => {
      await start();
      expect(await failWith(dropConnection())).toMatchObject({ code: "MODEL_NETWORK" });
    });

    it("prose and refusals → MODEL_BAD_RESPONSE, with the tokens the answer cost", async () => {
      await start();
      answers.push("Sure! Here are the facts: 用户偏好深色模式");
      const prose = await failWith(undefined);
      expect(prose.message).toContain("is not JSON");
      // The tokens of an answer that did not parse are still counted.
      expect(prose.usage?.outputTokens).toBeGreaterThan(0);
      server.requests.length = 0;
      answers.push({ content: null, refusal: "I can't help with that." });
      expect((await failWith(undefined)).message).toContain("refused");
    });
  });

  it("core's chain retries a 429 and a bad answer, then returns the checked value", async () => {
    await start();
    server.once("POST /chat/completions", rateLimited({ retryAfterMs: "1" }));
    answers.push(JSON.stringify({ facts: [{ text: "no source" }] }), JSON.stringify(FACTS_VALUE));
    const chain = new LanguageModelChain([await make()], {
      retry: { retries: 3, minDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 1000 },
      circuit: { failureThreshold: 3, cooldownMs: 1000, finalCooldownMs: 1000 },
    });
    const run = chain.run({ maxTokens: 100_000 });
    const result = await run.generate({
      messages: [{ role: "user", content: "x" }],
      schema: FACTS,
    });
    expect(result.value).toEqual(FACTS_VALUE);
    expect(chatRequests()).toHaveLength(3);
    expect(chain.primary.stats).toMatchObject({ requests: 3, retries: 2, failures: 0 });
    // Usage as the server counted it, for the two answers it gave.
    expect(run.usage.requests).toBe(2);
  });

  it("is chosen from config and environment, sharing the base URL with embeddings", async () => {
    await start({}, { models: ["qwen3:8b"] });
    const llm = resolveConfig({ llm: { provider: "openai", model: "qwen3:8b" } }).llm;
    const { models } = await selectLanguageModels(
      llm,
      { openai: async () => openaiLanguageModelProvider },
      {
        ENGRAM_OPENAI_BASE_URL: server.baseUrl,
        ENGRAM_OPENAI_MODEL: "nomic-embed-text",
      },
    );
    expect(models[0]).toMatchObject({ id: "openai", model: "qwen3:8b", endpoint: server.baseUrl });
    const unusable = await selectLanguageModels(
      resolveConfig({ llm: { provider: "openai" } }).llm,
      { openai: async () => openaiLanguageModelProvider },
      {},
    );
    expect(unusable.models).toEqual([]);
    expect(unusable.warnings[0]).toMatch(/"openai" cannot run: no OPENAI_API_KEY/);
  });
});
