import {
  type GenerateRequest,
  type GenerateResult,
  generateResult,
  type LanguageModel,
  ModelError,
  type TokenUsage,
} from "@engram/core/driver";
import { callOnce } from "./call.js";
import {
  type OpenAILanguageModelOptions,
  type ResolvedChatOptions,
  resolveChatOptions,
} from "./chat-options.js";
import { chatCompletionBody } from "./chat-request.js";
import { createClient } from "./connection.js";
import { PROVIDER_ID } from "./settings.js";

/**
 * A language model behind OpenAI's Chat Completions API — or any server that speaks it (Ollama,
 * vLLM, LM Studio, OpenRouter: set `baseUrl`) — through the official `openai` SDK. With a schema,
 * the answer is asked for as Structured Outputs (`response_format: { type: "json_schema", … }`),
 * parsed and returned as `value`; usage comes from the response's `usage`.
 *
 * Each call is one request (SDK retries off): core's chain retries, breaks the circuit and falls
 * back. Failures are `ModelError`s classified like the embeddings' (401 auth, 429 rate limit or
 * `insufficient_quota`, "maximum context length" too_long, 5xx server, timeouts, a body that is
 * not a chat completion bad_response).
 *
 * @example
 * ```ts
 * const model = await openaiLanguageModel({ baseUrl: "http://localhost:11434/v1", model: "qwen3:8b" });
 * const { value } = await model.generate({
 *   messages: [{ role: "user", content: "List the facts in: Lin prefers dark mode." }],
 *   schema: { type: "object", properties: { facts: { type: "array", items: { type: "string" } } },
 *     required: ["facts"], additionalProperties: false },
 * });
 * ```
 */
export async function openaiLanguageModel(
  options: OpenAILanguageModelOptions = {},
): Promise<LanguageModel> {
  const resolved = resolveChatOptions(options);
  const { client, classify } = await createClient(resolved, "model");
  return {
    id: PROVIDER_ID,
    model: resolved.model,
    endpoint: resolved.baseUrl.endpoint,
    ...(resolved.contextTokens ? { contextTokens: resolved.contextTokens } : {}),
    generate: <T>(request: GenerateRequest) =>
      callOnce(
        async (signal) => {
          const body = chatCompletionBody(request, resolved);
          // The SDK's own types cover OpenAI's fields; the body is exactly what is sent.
          const response: unknown = await client.chat.completions.create(
            body as unknown as Parameters<typeof client.chat.completions.create>[0],
            { signal },
          );
          return readCompletion<T>(response, request, resolved);
        },
        {
          what: "POST /chat/completions",
          signal: request.signal,
          timeoutMs: resolved.timeoutMs,
          classify,
          service: "model",
        },
      ),
  };
}

/**
 * The answer of a chat completion: the first choice's text (parsed when a schema was asked for),
 * `finish_reason`, `usage` and the model that answered.
 *
 * @throws ModelError `bad_response` for a body that is not a chat completion, a refusal, an empty
 *   answer, or an answer that is not JSON when a schema was asked for.
 */
export function readCompletion<T>(
  response: unknown,
  request: GenerateRequest,
  options: Pick<ResolvedChatOptions, "model" | "baseUrl">,
): GenerateResult<T> {
  const body = record(response);
  const choice = record(Array.isArray(body.choices) ? body.choices[0] : undefined);
  const message = record(choice.message);
  const usage = readUsage(body.usage);
  const finishReason = typeof choice.finish_reason === "string" ? choice.finish_reason : "stop";
  if (typeof message.refusal === "string" && message.refusal) {
    throw new ModelError("bad_response", PROVIDER_ID, `the model refused: ${message.refusal}`, {
      hint: "rephrase the request or use another model",
      ...(usage ? { usage } : {}),
    });
  }
  if (typeof message.content !== "string") {
    throw new ModelError(
      "bad_response",
      PROVIDER_ID,
      Array.isArray(body.choices)
        ? `${options.baseUrl.endpoint} answered without message content (finish_reason ${String(choice.finish_reason)})`
        : `${options.baseUrl.endpoint} did not answer with a chat completion`,
      usage ? { usage } : {},
    );
  }
  // Servers that send no usage (some proxies) leave it to core's estimate.
  return generateResult<T>(request, {
    provider: PROVIDER_ID,
    text: message.content,
    usage,
    finishReason,
    model: typeof body.model === "string" && body.model ? body.model : options.model,
  });
}

function readUsage(value: unknown): TokenUsage | undefined {
  const usage = record(value);
  const input = usage.prompt_tokens;
  const output = usage.completion_tokens;
  return typeof input === "number" && typeof output === "number"
    ? { inputTokens: input, outputTokens: output }
    : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}
