import {
  type GenerateRequest,
  type GenerateResult,
  generateResult,
  type LanguageModel,
  ModelError,
  type TokenUsage,
} from "@engram/core/driver";
import type { GoogleGenAI } from "@google/genai";
import {
  type GeminiLanguageModelOptions,
  type ResolvedGeminiChatOptions,
  resolveGeminiChatOptions,
} from "./chat-options.js";
import { createGeminiClient } from "./client.js";
import { classifyFailure, transportFailure } from "./errors.js";
import { withConventionalEnv } from "./options.js";
import { GEMINI_PROVIDER_ID } from "./settings.js";
import { type AttemptRecord, recordingFetch } from "./transport.js";

/**
 * A language model behind the Gemini API's `generateContent`, through the official
 * `@google/genai` SDK. Options left unset fall back to `GEMINI_API_KEY` (then `GOOGLE_API_KEY`)
 * and `GOOGLE_GEMINI_BASE_URL`. With a schema, the answer is asked for as JSON
 * (`responseMimeType: "application/json"`) matching it (`responseJsonSchema`, which takes JSON
 * Schema as it is), parsed and returned as `value`; usage comes from `usageMetadata` (thinking
 * tokens count as output, as they are billed).
 *
 * Each call is one request, made once: core retries, breaks the circuit and falls back. Failures
 * are `ModelError`s classified like the embeddings' (400 `API_KEY_INVALID` auth, 429 rate limit or
 * a per-day quota, 5xx server, timeouts, unreadable bodies).
 *
 * @example
 * const model = await geminiLanguageModel({ model: "gemini-2.5-flash", thinkingBudget: 0 });
 * const { text } = await model.generate({ messages: [{ role: "user", content: "Summarise: …" }] });
 */
export async function geminiLanguageModel(
  options: GeminiLanguageModelOptions = {},
): Promise<LanguageModel> {
  return createGeminiLanguageModel(withConventionalEnv(options, process.env));
}

/**
 * {@link geminiLanguageModel} without reading the environment: the provider descriptor uses it
 * with settings core already resolved.
 */
export async function createGeminiLanguageModel(
  options: GeminiLanguageModelOptions,
): Promise<LanguageModel> {
  const resolved = resolveGeminiChatOptions(options);
  const ai = await createGeminiClient(resolved);
  return {
    id: GEMINI_PROVIDER_ID,
    model: resolved.model,
    endpoint: resolved.baseUrl,
    ...(resolved.contextTokens ? { contextTokens: resolved.contextTokens } : {}),
    generate: (request) => generate(ai, resolved, request),
  };
}

async function generate<T>(
  ai: GoogleGenAI,
  options: ResolvedGeminiChatOptions,
  request: GenerateRequest,
): Promise<GenerateResult<T>> {
  const { signal } = request;
  signal?.throwIfAborted();
  // A signal of our own per call: the SDK never removes its listener from the signal it is given.
  const call = new AbortController();
  const forward = () => call.abort(signal?.reason);
  signal?.addEventListener("abort", forward, { once: true });
  const record: AttemptRecord = {};
  const context = {
    endpoint: options.baseUrl,
    apiKey: options.apiKey,
    record,
    signal,
    service: "model" as const,
    expected: "generateContent",
  };
  let response: unknown;
  try {
    response = await ai.models.generateContent({
      model: options.model,
      contents: request.messages.map((m) => ({
        role: m.role === "assistant" ? "model" : "user",
        parts: [{ text: m.content }],
      })),
      config: {
        ...(request.system ? { systemInstruction: request.system } : {}),
        ...(request.maxTokens !== undefined ? { maxOutputTokens: request.maxTokens } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.schema
          ? { responseMimeType: "application/json", responseJsonSchema: request.schema }
          : {}),
        ...(options.thinkingBudget !== undefined
          ? { thinkingConfig: { thinkingBudget: options.thinkingBudget } }
          : {}),
        abortSignal: call.signal,
        httpOptions: {
          fetch: recordingFetch(record, (error, attemptSignal) =>
            transportFailure(error, {
              endpoint: options.baseUrl,
              timeoutMs: options.timeoutMs,
              attemptSignal,
              signal,
              service: "model",
            }),
          ),
        },
      },
    });
  } catch (error) {
    throw classifyFailure(error, context);
  } finally {
    signal?.removeEventListener("abort", forward);
  }
  return readGenerateContent<T>(response, request, options);
}

/**
 * The answer of a `generateContent` response: the first candidate's text parts (thoughts left
 * out; parsed when a schema was asked for), its finish reason (`STOP` → `stop`, `MAX_TOKENS` →
 * `length`, others lower-cased), `usageMetadata` and `modelVersion`.
 *
 * @throws ModelError `bad_input` for a prompt Google blocked; `bad_response` for a body without a
 *   candidate or text, or an answer that is not JSON when a schema was asked for.
 */
export function readGenerateContent<T>(
  response: unknown,
  request: GenerateRequest,
  options: Pick<ResolvedGeminiChatOptions, "model" | "baseUrl">,
): GenerateResult<T> {
  const body = record(response);
  const usage = readUsage(body.usageMetadata);
  const blocked = record(body.promptFeedback).blockReason;
  const candidate = record(Array.isArray(body.candidates) ? body.candidates[0] : undefined);
  if (!Array.isArray(body.candidates) || !body.candidates.length) {
    if (typeof blocked === "string") {
      throw new ModelError("bad_input", GEMINI_PROVIDER_ID, `the prompt was blocked (${blocked})`, {
        hint: "the request's content tripped Gemini's safety filters: leave that text out, or use another provider",
        ...(usage ? { usage } : {}),
      });
    }
    throw new ModelError(
      "bad_response",
      GEMINI_PROVIDER_ID,
      `${options.baseUrl} answered without a candidate`,
      usage ? { usage } : {},
    );
  }
  const parts = record(candidate.content).parts;
  const texts = (Array.isArray(parts) ? parts : [])
    .map(record)
    .filter((p) => typeof p.text === "string" && p.thought !== true)
    .map((p) => p.text as string);
  const rawReason = typeof candidate.finishReason === "string" ? candidate.finishReason : "STOP";
  const finishReason =
    rawReason === "STOP" ? "stop" : rawReason === "MAX_TOKENS" ? "length" : rawReason.toLowerCase();
  if (!texts.length) {
    throw new ModelError(
      "bad_response",
      GEMINI_PROVIDER_ID,
      `the answer has no text (finishReason ${rawReason})`,
      usage ? { usage } : {},
    );
  }
  return generateResult<T>(request, {
    provider: GEMINI_PROVIDER_ID,
    text: texts.join(""),
    usage,
    finishReason,
    model:
      typeof body.modelVersion === "string" && body.modelVersion
        ? body.modelVersion
        : options.model,
  });
}

/** Input tokens, and output tokens with the thinking tokens (both are billed as output). */
function readUsage(value: unknown): TokenUsage | undefined {
  const usage = record(value);
  const input = usage.promptTokenCount;
  if (typeof input !== "number") return undefined;
  const count = (n: unknown) => (typeof n === "number" ? n : 0);
  return {
    inputTokens: input,
    outputTokens: count(usage.candidatesTokenCount) + count(usage.thoughtsTokenCount),
  };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}
