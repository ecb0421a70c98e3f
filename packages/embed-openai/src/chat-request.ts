import type { GenerateRequest, JsonSchema } from "@engram/core/driver";
import type { ResolvedChatOptions } from "./chat-options.js";

/** The JSON body of one `POST /chat/completions` request. */
export interface ChatCompletionBody {
  model: string;
  messages: Array<{ role: "system" | "user" | "assistant"; content: string }>;
  max_completion_tokens?: number;
  max_tokens?: number;
  temperature?: number;
  response_format?:
    | { type: "json_object" }
    | {
        type: "json_schema";
        json_schema: { name: string; schema: JsonSchema; strict: boolean };
      };
}

/**
 * The Chat Completions body for a request. With a schema, `structuredOutput` decides how it is
 * asked for: `json_schema` sends Structured Outputs (`strict: true` when the schema is one strict
 * mode accepts — every object closed with `additionalProperties: false` and all its properties
 * required — else `strict: false`, so the API takes it as guidance); `json_object` and `prompt`
 * put the schema in the system prompt for servers without `json_schema`.
 */
export function chatCompletionBody(
  request: GenerateRequest,
  options: ResolvedChatOptions,
): ChatCompletionBody {
  const schema = request.schema;
  const viaPrompt = schema !== undefined && options.structuredOutput !== "json_schema";
  const system = [
    request.system,
    viaPrompt
      ? `Answer with one JSON value only, no prose and no code fence, matching this JSON Schema:\n${JSON.stringify(schema)}`
      : undefined,
  ]
    .filter((part): part is string => Boolean(part))
    .join("\n\n");
  const body: ChatCompletionBody = {
    model: options.model,
    messages: [
      ...(system ? [{ role: "system" as const, content: system }] : []),
      ...request.messages.map((m) => ({ role: m.role, content: m.content })),
    ],
  };
  if (request.maxTokens !== undefined) body[options.maxTokensField] = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (schema && options.structuredOutput === "json_schema") {
    body.response_format = {
      type: "json_schema",
      json_schema: {
        name: schemaName(request.schemaName),
        schema,
        strict: isStrictSchema(schema),
      },
    };
  } else if (schema && options.structuredOutput === "json_object") {
    body.response_format = { type: "json_object" };
  }
  return body;
}

/** A `json_schema.name` OpenAI accepts: `[A-Za-z0-9_-]{1,64}` (default `answer`). */
export function schemaName(name: string | undefined): string {
  const clean = (name ?? "").replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 64);
  return clean || "answer";
}

/**
 * True when OpenAI's strict mode accepts the schema as it is: every object schema lists all its
 * properties in `required` and sets `additionalProperties: false`, recursively (properties, items,
 * anyOf, $defs). Keywords strict mode ignores are not checked: core validates every answer.
 */
export function isStrictSchema(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return true;
  if (Array.isArray(schema)) return schema.every(isStrictSchema);
  const s = schema as Record<string, unknown>;
  const properties = s.properties as Record<string, unknown> | undefined;
  const isObject = s.type === "object" || properties !== undefined;
  if (isObject) {
    if (s.additionalProperties !== false) return false;
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    if (Object.keys(properties ?? {}).some((key) => !required.has(key))) return false;
  }
  const children = [
    ...Object.values(properties ?? {}),
    s.items,
    ...(Array.isArray(s.anyOf) ? s.anyOf : []),
    ...Object.values((s.$defs as Record<string, unknown> | undefined) ?? {}),
    ...Object.values((s.definitions as Record<string, unknown> | undefined) ?? {}),
  ];
  return children.every(isStrictSchema);
}
