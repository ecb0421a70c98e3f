import { randomBytes } from "node:crypto";
import { schemaExample } from "@engram/core/testing";

/**
 * `POST /v1/chat/completions` as api.openai.com answers it, for the wire server: request
 * validation (model, messages, `response_format` with OpenAI's strict-mode schema rules,
 * `max_tokens` refused by reasoning models), the `chat.completion` body with `usage`, and the
 * answer cut at the token cap with `finish_reason: "length"`. What the model says comes from the
 * test's {@link ChatBehaviour}, else a deterministic default: an instance of the requested schema,
 * or an echo of the last user message.
 */

/** One chat request's body, as the SDK sent it. */
export interface ChatCompletionsBody {
  model?: string;
  messages?: Array<{ role?: string; content?: unknown }>;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  response_format?: {
    type?: string;
    json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean };
  };
}

/** What the emulated model answers. */
export interface ChatAnswer {
  /** The message content; null with `refusal`. */
  content: string | null;
  refusal?: string;
  finish_reason?: string;
  /** Leave `usage` out of the body (some proxies and old servers do). */
  omitUsage?: boolean;
}

/** How the emulated model behaves. */
export interface ChatBehaviour {
  /** The answer to a request (default: a schema instance, or an echo). */
  answer?: (body: ChatCompletionsBody) => ChatAnswer | string | undefined;
  /** Models that exist (default: any name not starting with `gpt-` or `o`, plus OpenAI's). */
  models?: readonly string[];
}

const OPENAI_CHAT_MODELS = [
  "gpt-4.1-mini",
  "gpt-4.1",
  "gpt-4o-mini",
  "gpt-4o",
  "o4-mini",
  "gpt-5-mini",
];

/** Reply to one chat request (after auth): a 400/404 like OpenAI's, or a `chat.completion`. */
export function chatCompletionResult(
  body: ChatCompletionsBody,
  behaviour: ChatBehaviour = {},
): { status: number; body: unknown } {
  const model = body.model ?? "";
  const known = behaviour.models ?? OPENAI_CHAT_MODELS;
  if (!model) return invalid("you must provide a model parameter", "model");
  if (!known.includes(model) && (behaviour.models || /^(gpt-|o\d)/.test(model))) {
    return {
      status: 404,
      body: error(
        `The model \`${model}\` does not exist or you do not have access to it.`,
        "invalid_request_error",
        null,
        "model_not_found",
      ),
    };
  }
  const messages = body.messages ?? [];
  if (!messages.length) return invalid("[] is too short - 'messages'", "messages");
  for (const [i, m] of messages.entries()) {
    if (!["system", "developer", "user", "assistant"].includes(String(m.role))) {
      return invalid(
        `Invalid value: '${m.role}'. Supported values are: 'system', 'assistant', 'user'…`,
        `messages[${i}].role`,
      );
    }
  }
  if (body.max_tokens !== undefined && /^(o\d|gpt-5)/.test(model)) {
    return {
      status: 400,
      body: error(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        "invalid_request_error",
        "max_tokens",
        "unsupported_parameter",
      ),
    };
  }
  const format = body.response_format;
  if (format?.type === "json_schema") {
    const name = format.json_schema?.name ?? "";
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
      return invalid(
        `Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        "response_format.json_schema.name",
      );
    }
    if (format.json_schema?.strict) {
      const problem = strictProblem(format.json_schema.schema ?? {}, []);
      if (problem) {
        return invalid(
          `Invalid schema for response_format '${name}': ${problem}`,
          "response_format",
        );
      }
    }
  }
  const reply = behaviour.answer?.(body) ?? defaultAnswer(body);
  const answer: ChatAnswer = typeof reply === "string" ? { content: reply } : reply;
  const cap = body.max_completion_tokens ?? body.max_tokens;
  let content = answer.content;
  let finish = answer.finish_reason ?? "stop";
  if (content !== null && cap !== undefined && tokens(content) > cap) {
    content = content.slice(0, cap * 4);
    finish = "length";
  }
  const promptTokens = messages.reduce((n, m) => n + tokens(String(m.content ?? "")) + 4, 0);
  const completionTokens = content === null ? 0 : tokens(content);
  return {
    status: 200,
    body: {
      id: `chatcmpl-${randomBytes(12).toString("hex")}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model:
        known === OPENAI_CHAT_MODELS && model === "gpt-4.1-mini"
          ? "gpt-4.1-mini-2025-04-14"
          : model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content,
            refusal: answer.refusal ?? null,
            annotations: [],
          },
          logprobs: null,
          finish_reason: finish,
        },
      ],
      ...(answer.omitUsage
        ? {}
        : {
            usage: {
              prompt_tokens: promptTokens,
              completion_tokens: completionTokens,
              total_tokens: promptTokens + completionTokens,
              prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
              completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
            },
          }),
      service_tier: "default",
      system_fingerprint: `fp_${randomBytes(5).toString("hex")}`,
    },
  };
}

/** OpenAI's strict-mode check: the first rule the schema breaks, worded as the API words it. */
function strictProblem(schema: Record<string, unknown>, path: string[]): string | undefined {
  const context = `In context=(${path.map((p) => `'${p}'`).join(", ")})`;
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (schema.type === "object" || properties) {
    if (schema.additionalProperties !== false) {
      return `${context}, 'additionalProperties' is required to be supplied and to be false.`;
    }
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const missing = Object.keys(properties ?? {}).find((k) => !required.has(k));
    if (missing) {
      return `${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    }
    for (const [key, child] of Object.entries(properties ?? {})) {
      const problem = strictProblem(child, [...path, "properties", key]);
      if (problem) return problem;
    }
  }
  if (schema.items && typeof schema.items === "object") {
    return strictProblem(schema.items as Record<string, unknown>, [...path, "items"]);
  }
  return undefined;
}

/** The emulator's own answer: an instance of the schema asked for, else an echo. */
function defaultAnswer(body: ChatCompletionsBody): string {
  const format = body.response_format;
  if (format?.type === "json_schema")
    return JSON.stringify(schemaExample(format.json_schema?.schema));
  if (format?.type === "json_object") return "{}";
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
  return `You said: ${String(last?.content ?? "")}`;
}

function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function invalid(message: string, param: string): { status: number; body: unknown } {
  return { status: 400, body: error(message, "invalid_request_error", param) };
}

function error(
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
) {
  return { error: { message, type, param, code } };
}
