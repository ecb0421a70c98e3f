import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../agent/tools-definitions.js";
import type { GenerateRequest, LanguageModel } from "../model/language-model.js";
import { ResilientLanguageModel } from "../model/resilient.js";
import { assertMatchesSchema, parseJsonAnswer } from "../model/structured-output.js";
import {
  describeHookedChecks,
  expectAbortedBeforeSending,
  expectAbortInFlight,
  expectCount,
  expectInjectedFailure,
  expectProviderFailure,
  expectSafeEndpoint,
  expectText,
  type InjectedFailure,
  type ProviderTestHooks,
  rejectionOf,
  rejectsWithReason,
  SAMPLE_TEXTS,
  useSubject,
} from "./provider-conformance.js";

/**
 * A failure a language model's test backend can inject: the shared ones, an answer that is not
 * JSON where JSON was asked for (`not_json`), and JSON that does not match the request's schema
 * (`schema_violation`: `{}` will do, the kit's schema requires properties).
 */
export type LanguageModelFailure = InjectedFailure | "not_json" | "schema_violation";

/** What {@link describeLanguageModelConformance}'s setup gives the kit. */
export interface LanguageModelConformanceSubject extends ProviderTestHooks<LanguageModelFailure> {
  /** The model under test (closed by the kit after its tests). */
  model: LanguageModel;
  /**
   * The same provider on the same backend with a timeout of its own shorter than the test's: with
   * `failNext.slow`, the kit checks that a slow answer ends in a retryable `MODEL_TIMEOUT`.
   */
  shortTimeout?: () => Promise<LanguageModel>;
}

/**
 * The schema the kit asks for: within the subset OpenAI's strict mode, Gemini and node-llama-cpp's
 * grammars share, and closed (enums, a boolean, at most two tags) so that even a model with random
 * weights finishes it within the kit's token cap.
 */
export const CONFORMANCE_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    keep: { type: "boolean" },
    kind: { type: "string", enum: ["fact", "preference", "decision"] },
    tags: { type: "array", items: { type: "string", enum: ["ops", "ui", "记忆"] }, maxItems: 2 },
  },
  required: ["keep", "kind", "tags"],
  additionalProperties: false,
};

const STRUCTURED: GenerateRequest = {
  system: "Decide whether the note is worth keeping in long-term memory. Answer as JSON.",
  messages: [
    {
      role: "user",
      content: "memory/2026-03-01.md:3 用户偏好深色模式 (the user prefers dark mode)",
    },
  ],
  schema: CONFORMANCE_SCHEMA,
  schemaName: "verdict",
  maxTokens: 200,
  temperature: 0,
};

const CONVERSATION: GenerateRequest = {
  system: "You are a terse assistant.",
  messages: [
    { role: "user", content: "The deploy window is Tuesday. 请记住。" },
    { role: "assistant", content: "Noted." },
    { role: "user", content: "When is the deploy window? Answer in one short sentence." },
  ],
  maxTokens: 48,
  temperature: 0,
};

const RAMBLE: GenerateRequest = {
  messages: [
    {
      role: "user",
      content: `Write a long story, at least five paragraphs, about this note: ${SAMPLE_TEXTS.long.slice(0, 400)} 请写一个很长的故事。`,
    },
  ],
  maxTokens: 4,
};

/** Core's retry-and-check wrapper around `model`, with no retries and a breaker that never opens. */
function checkedOnce(model: LanguageModel): ResilientLanguageModel {
  return new ResilientLanguageModel(model, {
    retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 },
    circuit: { failureThreshold: 1_000, cooldownMs: 1, finalCooldownMs: 1 },
  });
}

function expectUsage(usage: unknown): void {
  expect(usage, "usage").toBeTypeOf("object");
  const { inputTokens, outputTokens } = (usage ?? {}) as Record<string, unknown>;
  for (const [what, n] of [
    ["inputTokens", inputTokens],
    ["outputTokens", outputTokens],
  ] as const) {
    expect(Number.isInteger(n) && (n as number) >= 0, `usage.${what} = ${String(n)}`).toBe(true);
  }
  expect(inputTokens as number, "usage.inputTokens of a non-empty prompt").toBeGreaterThan(0);
}

/**
 * The language-model kit's checks, one function per test, each taking the subject (exported so
 * that a check can be proven to fail on a model that breaks it).
 */
export const languageModelChecks = {
  identity({ model, secrets }: LanguageModelConformanceSubject): void {
    expectText(model.id, "id");
    expectText(model.model, "model");
    expectCount(model.contextTokens, "contextTokens", true);
    expectSafeEndpoint(model.endpoint, secrets);
  },

  async text({ model, requests }: LanguageModelConformanceSubject): Promise<void> {
    const before = requests?.();
    const result = await model.generate(CONVERSATION);
    if (before !== undefined && requests) expect(requests() - before, "requests").toBe(1);
    expect(result.text, "text").toBeTypeOf("string");
    expect(result.value, "value without a schema").toBeUndefined();
    expectText(result.finishReason, "finishReason");
    expectText(result.model, "the answering model");
    expectUsage(result.usage);
  },

  async structured({ model }: LanguageModelConformanceSubject): Promise<void> {
    const result = await model.generate(STRUCTURED);
    expect(result.value, "value").toBeDefined();
    expect(result.value, "value is the text, parsed").toEqual(
      parseJsonAnswer(result.text, model.id),
    );
    assertMatchesSchema(result.value, CONFORMANCE_SCHEMA, model.id, "verdict");
    expectText(result.finishReason, "finishReason");
    expectText(result.model, "the answering model");
    expectUsage(result.usage);
  },

  async cutOffText({ model }: LanguageModelConformanceSubject): Promise<void> {
    const result = await model.generate(RAMBLE);
    expect(result.finishReason, "finishReason at maxTokens").toBe("length");
    expect(result.text).toBeTypeOf("string");
  },

  async cutOffStructured({ model, secrets }: LanguageModelConformanceSubject): Promise<void> {
    const error = await rejectionOf(
      model.generate({ ...STRUCTURED, maxTokens: 3 }),
      "JSON cut off at 3 tokens",
    );
    expectProviderFailure(error, "bad_response", ["model"], secrets);
    expect((error as { cutOff?: unknown }).cutOff, "ModelError.cutOff").toBe(true);
  },

  async abortedBeforeSending(subject: LanguageModelConformanceSubject): Promise<void> {
    await expectAbortedBeforeSending(
      subject,
      (signal) => subject.model.generate({ ...CONVERSATION, signal }),
      rejectsWithReason,
    );
  },

  async abortedInFlight(subject: LanguageModelConformanceSubject): Promise<void> {
    await expectAbortInFlight(
      subject,
      (signal) => subject.model.generate({ ...CONVERSATION, signal }),
      rejectsWithReason,
    );
  },

  async failure(
    subject: LanguageModelConformanceSubject,
    failure: LanguageModelFailure,
  ): Promise<void> {
    // Core checks answers against the schema (drivers only parse them): as createMemory runs
    // every model, through its wrapper.
    const model = failure === "schema_violation" ? checkedOnce(subject.model) : subject.model;
    await expectInjectedFailure(
      subject,
      failure,
      ["model"],
      () => model.generate(STRUCTURED),
      async () => {
        const { value } = await model.generate(STRUCTURED);
        assertMatchesSchema(value, CONFORMANCE_SCHEMA, model.id, "verdict");
      },
    );
  },

  async timeout(subject: LanguageModelConformanceSubject): Promise<void> {
    if (!subject.shortTimeout) return expect.fail("needs shortTimeout()");
    const model = await subject.shortTimeout();
    try {
      await expectInjectedFailure(
        subject,
        "slow",
        ["model"],
        () => model.generate(CONVERSATION),
        // The main instance, whose timeout a busy machine cannot trip.
        () => subject.model.generate(CONVERSATION),
      );
    } finally {
      await model.close?.();
    }
  },
};

const FAILURES: readonly Exclude<LanguageModelFailure, "slow">[] = [
  "rate_limit",
  "auth",
  "server",
  "malformed",
  "not_json",
  "schema_violation",
];

/**
 * The language-model conformance kit: registers vitest tests proving that a
 * {@link LanguageModel} keeps the contract (`model/language-model.ts`), whatever its wire format.
 * Call it at the top level of a test file, with a setup that starts your test backend and creates
 * the model (run once):
 *
 * ```ts
 * import { describeLanguageModelConformance } from "@engram/core/testing";
 *
 * describeLanguageModelConformance("my-chat", async () => {
 *   const server = await startMyChatServer();
 *   return {
 *     model: await myLanguageModel({ baseUrl: server.url, apiKey: KEY }),
 *     secrets: [KEY],
 *     requests: () => server.requests.length,
 *     failNext: {
 *       not_json: () => server.answerNext("Sure! Here it is: …"),
 *       schema_violation: () => server.answerNext("{}"),
 *       ...
 *     },
 *     close: () => server.close(),
 *   };
 * });
 * ```
 *
 * It checks identity (id, model, contextTokens, an endpoint without secrets); a text answer to a
 * conversation with a system prompt (no value, finish reason, answering model, usage); a JSON-Schema
 * answer (its value is the text parsed, and matches the schema); the `maxTokens` cut-off
 * (`finishReason: "length"`, and a `MODEL_BAD_RESPONSE` with `cutOff` for cut JSON); aborted
 * signals (the signal's reason); and each injected failure as one request with the right `MODEL_*`
 * code, retryability and hint — an answer that violates the schema through core's checking
 * wrapper, as `createMemory` runs every model.
 */
export function describeLanguageModelConformance(
  name: string,
  setup: () => Promise<LanguageModelConformanceSubject>,
): void {
  describe(`LanguageModel conformance: ${name}`, () => {
    const s = useSubject(name, setup, (subject) => subject.model);
    const checks = languageModelChecks;

    it("identity: id, model, contextTokens; an endpoint without secrets", () =>
      checks.identity(s()));
    it("answers a conversation as text, with finish reason, model and usage", () =>
      checks.text(s()));
    it("answers JSON for a schema: value is the text parsed and matches the schema", () =>
      checks.structured(s()));
    it('stops at maxTokens with finishReason "length"', () => checks.cutOffText(s()));
    it("JSON cut off at maxTokens → MODEL_BAD_RESPONSE with cutOff", () =>
      checks.cutOffStructured(s()));
    it("an aborted signal rejects with its reason before any request", () =>
      checks.abortedBeforeSending(s()));
    describeHookedChecks(name, s, {
      codePrefix: "MODEL_",
      failures: FAILURES,
      abortRejection: "the signal's reason",
      abortedInFlight: checks.abortedInFlight,
      failure: checks.failure,
      timeout: checks.timeout,
    });
  });
}
