import { randomBytes } from "node:crypto";
import { schemaExample } from "@engram/core/testing";
import type { RecordedRequest, WireReply } from "./gemini-wire-server.js";

/**
 * `POST /v1beta/models/{model}:generateContent` as the Gemini API answers it, for the wire server:
 * request checks (model, contents and roles, `responseJsonSchema` only with
 * `responseMimeType: "application/json"`, not together with `responseSchema`), then a
 * `GenerateContentResponse` (`candidates[0].content.parts[].text`, `finishReason`,
 * `usageMetadata`, `modelVersion`), the text cut at `maxOutputTokens` with `MAX_TOKENS`. What the
 * model says: an example of the requested schema, or an echo, unless a test queues
 * {@link generateAnswer}.
 */

/** The generation models the server knows. */
export const GENERATE_MODELS = ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite"];

/** A `generateContent` body as the SDK sends it. */
export interface WireGenerateBody {
  contents?: Array<{ role?: string; parts?: Array<{ text?: string }> }>;
  systemInstruction?: { role?: string; parts?: Array<{ text?: string }> };
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    responseMimeType?: string;
    responseSchema?: unknown;
    responseJsonSchema?: unknown;
    thinkingConfig?: { thinkingBudget?: number };
  };
}

/** What a scripted answer says, besides its text. */
export interface GenerateAnswerOptions {
  finishReason?: string;
  /** Thinking tokens to report (billed as output). */
  thoughtsTokens?: number;
  /** Leave `usageMetadata` out. */
  omitUsage?: boolean;
  /** Answer with no candidate and this `promptFeedback.blockReason`. */
  blockReason?: string;
}

/** The answer to a checked `generateContent` request for `model`. */
export function answerGenerateContent(
  request: RecordedRequest,
  model: string,
  text?: string,
  options: GenerateAnswerOptions = {},
): WireReply {
  if (!GENERATE_MODELS.includes(model)) {
    return googleError(
      404,
      "NOT_FOUND",
      `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
    );
  }
  const body = (request.body ?? {}) as WireGenerateBody;
  const contents = body.contents ?? [];
  if (!contents.length) {
    return googleError(
      400,
      "INVALID_ARGUMENT",
      "* GenerateContentRequest.contents: contents is not specified\n",
    );
  }
  const badRole = contents.find((c) => c.role !== "user" && c.role !== "model");
  if (badRole) {
    return googleError(
      400,
      "INVALID_ARGUMENT",
      `Please use a valid role: user, model. Got: ${String(badRole.role)}`,
    );
  }
  const config = body.generationConfig ?? {};
  if (config.responseJsonSchema !== undefined && config.responseSchema !== undefined) {
    return googleError(
      400,
      "INVALID_ARGUMENT",
      "* GenerateContentRequest.generation_config: only one of response_schema and response_json_schema may be set\n",
    );
  }
  if (
    (config.responseJsonSchema !== undefined || config.responseSchema !== undefined) &&
    config.responseMimeType !== "application/json"
  ) {
    return googleError(
      400,
      "INVALID_ARGUMENT",
      "* GenerateContentRequest.generation_config.response_mime_type: must be application/json when a response schema is set\n",
    );
  }
  const promptText = [
    ...(body.systemInstruction?.parts ?? []),
    ...contents.flatMap((c) => c.parts ?? []),
  ]
    .map((p) => p.text ?? "")
    .join("\n");
  const promptTokenCount = tokens(promptText);
  if (options.blockReason) {
    return {
      status: 200,
      json: {
        promptFeedback: { blockReason: options.blockReason },
        usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
        modelVersion: model,
      },
    };
  }
  let answer =
    text ??
    (config.responseJsonSchema !== undefined
      ? JSON.stringify(schemaExample(config.responseJsonSchema))
      : `You said: ${
          contents
            .at(-1)
            ?.parts?.map((p) => p.text)
            .join("") ?? ""
        }`);
  let finishReason = options.finishReason ?? "STOP";
  const cap = config.maxOutputTokens;
  if (cap !== undefined && tokens(answer) > cap) {
    answer = answer.slice(0, cap * 4);
    finishReason = "MAX_TOKENS";
  }
  const candidatesTokenCount = tokens(answer);
  const thoughts = options.thoughtsTokens ?? 0;
  return {
    status: 200,
    json: {
      candidates: [
        { content: { parts: [{ text: answer }], role: "model" }, finishReason, index: 0 },
      ],
      ...(options.omitUsage
        ? {}
        : {
            usageMetadata: {
              promptTokenCount,
              candidatesTokenCount,
              totalTokenCount: promptTokenCount + candidatesTokenCount + thoughts,
              promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokenCount }],
              ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
            },
          }),
      modelVersion: model,
      responseId: randomBytes(12).toString("base64url"),
    },
  };
}

/**
 * A queued reply: the model answers `text` (the request is still checked, and usage counted, as
 * the server does for its own answers).
 */
export function generateAnswer(
  text: string | undefined,
  options: GenerateAnswerOptions = {},
): (request: RecordedRequest) => WireReply {
  return (request) => {
    const model = /models\/([^/:]+):generateContent/.exec(request.url)?.[1] ?? "";
    return answerGenerateContent(request, model, text, options);
  };
}

function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function googleError(code: number, status: string, message: string): WireReply {
  return { status: code, json: { error: { code, message, status } } };
}
