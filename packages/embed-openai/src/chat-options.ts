import { ModelError } from "@engram/core/driver";
import { type ParsedBaseUrl, parseBaseUrl } from "./base-url.js";
import {
  CHAT_DEFAULTS,
  MAX_TOKENS_FIELDS,
  type MaxTokensField,
  STRUCTURED_OUTPUT_MODES,
  type StructuredOutputMode,
} from "./chat-settings.js";
import { settingReader } from "./option-values.js";
import { PROVIDER_ID } from "./settings.js";

/**
 * Options of {@link openaiLanguageModel}: the same names as `llm.providers.openai.*`. Nothing is
 * read from the environment here: the provider descriptor resolves the variables first.
 */
export interface OpenAILanguageModelOptions {
  /** API key. Optional for a `baseUrl` other than api.openai.com (a placeholder is sent). */
  apiKey?: string | undefined;
  /** API base URL (default `https://api.openai.com/v1`). */
  baseUrl?: string | undefined;
  /** Chat model (default `gpt-4.1-mini`). */
  model?: string | undefined;
  /** Extra HTTP headers (OpenRouter's `HTTP-Referer` / `X-Title`, a proxy's token). */
  headers?: Record<string, string> | undefined;
  organization?: string | undefined;
  project?: string | undefined;
  /** How long one request may take, body included, in ms (default 120000). */
  timeoutMs?: number | undefined;
  /**
   * `json_schema` (default): OpenAI Structured Outputs. `json_object`: JSON mode with the schema
   * in the system prompt. `prompt`: the schema in the system prompt only. Core checks every answer
   * against the schema whichever mode is used.
   */
  structuredOutput?: StructuredOutputMode | undefined;
  /** `max_completion_tokens` (default for api.openai.com) or `max_tokens` (default elsewhere). */
  maxTokensField?: MaxTokensField | undefined;
  /** The model's context window in tokens, when known. */
  contextTokens?: number | undefined;
}

/** {@link OpenAILanguageModelOptions} checked, with defaults applied. */
export interface ResolvedChatOptions {
  apiKey: string | undefined;
  baseUrl: ParsedBaseUrl;
  model: string;
  headers: Record<string, string>;
  organization: string | undefined;
  project: string | undefined;
  timeoutMs: number;
  structuredOutput: StructuredOutputMode;
  maxTokensField: MaxTokensField;
  contextTokens: number | undefined;
}

/**
 * Validate options and apply defaults.
 *
 * @throws EngramError `CONFIG_INVALID` naming the setting (`llm.providers.openai.<name>`).
 * @throws ModelError `auth` when OpenAI's own API is used without a key.
 */
export function resolveChatOptions(options: OpenAILanguageModelOptions): ResolvedChatOptions {
  const read = settingReader(options as Record<string, unknown>, "llm");
  const baseUrl = parseBaseUrl(read.optionalString("baseUrl"));
  const apiKey = read.optionalString("apiKey");
  if (!apiKey && baseUrl.isOpenAI) {
    throw new ModelError("auth", PROVIDER_ID, "no API key for api.openai.com", {
      hint: "set OPENAI_API_KEY (or llm.providers.openai.apiKey), or point baseUrl at a local OpenAI-compatible server",
    });
  }
  return {
    apiKey,
    baseUrl,
    model: read.optionalString("model") ?? CHAT_DEFAULTS.model,
    headers: read.headersOption(),
    organization: read.optionalString("organization"),
    project: read.optionalString("project"),
    timeoutMs: read.optionalCount("timeoutMs") ?? CHAT_DEFAULTS.timeoutMs,
    structuredOutput:
      read.optionalChoice("structuredOutput", STRUCTURED_OUTPUT_MODES) ?? "json_schema",
    maxTokensField:
      read.optionalChoice("maxTokensField", MAX_TOKENS_FIELDS) ??
      (baseUrl.isOpenAI ? "max_completion_tokens" : "max_tokens"),
    contextTokens: read.optionalCount("contextTokens"),
  };
}
