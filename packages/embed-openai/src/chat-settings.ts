import type { ProviderSetting } from "@engram/core/driver";
import { DEFAULT_BASE_URL, OPENAI_SETTINGS } from "./settings.js";

/** Defaults of the `openai` language model. */
export const CHAT_DEFAULTS = {
  /** A small model with Structured Outputs that accepts `temperature`. */
  model: "gpt-4.1-mini",
  /** Generation takes longer than embedding. */
  timeoutMs: 120_000,
} as const;

/** How the answer's schema is asked for; see {@link OPENAI_LLM_SETTINGS}. */
export const STRUCTURED_OUTPUT_MODES = ["json_schema", "json_object", "prompt"] as const;
/** A {@link STRUCTURED_OUTPUT_MODES} value. */
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];

/** The body field that caps the answer's tokens. */
export const MAX_TOKENS_FIELDS = ["max_completion_tokens", "max_tokens"] as const;
/** A {@link MAX_TOKENS_FIELDS} value. */
export type MaxTokensField = (typeof MAX_TOKENS_FIELDS)[number];

/**
 * Every setting of the `openai` language model, as `llm.providers.openai.<name>` and as
 * `ENGRAM_LLM_OPENAI_<NAME>`. The connection settings (key, base URL, headers, organization,
 * project) also read the embedding provider's `ENGRAM_OPENAI_*` variables, so one
 * `ENGRAM_OPENAI_BASE_URL` points both at the same server; `model`, `timeoutMs` and
 * `contextTokens` do not (`ENGRAM_OPENAI_MODEL` names the embedding model): set `llm.model` or
 * `ENGRAM_LLM_MODEL`.
 */
export const OPENAI_LLM_SETTINGS = {
  apiKey: OPENAI_SETTINGS.apiKey,
  baseUrl: {
    ...OPENAI_SETTINGS.baseUrl,
    description: `API base URL (default ${DEFAULT_BASE_URL}): Ollama http://localhost:11434/v1, LM Studio http://localhost:1234/v1, vLLM http://localhost:8000/v1, OpenRouter https://openrouter.ai/api/v1`,
  },
  model: {
    type: "string",
    scoped: true,
    description: `chat model (default ${CHAT_DEFAULTS.model}; e.g. qwen3:8b on Ollama, openai/gpt-4.1-mini on OpenRouter)`,
  },
  headers: OPENAI_SETTINGS.headers,
  organization: OPENAI_SETTINGS.organization,
  project: OPENAI_SETTINGS.project,
  timeoutMs: {
    type: "number",
    scoped: true,
    description: `how long one request may take, in ms (default ${CHAT_DEFAULTS.timeoutMs})`,
  },
  structuredOutput: {
    type: "string",
    description:
      "how answers with a schema are asked for: json_schema (default: Structured Outputs), json_object (JSON mode, the schema in the prompt) or prompt (the schema in the prompt only), for servers that reject json_schema",
  },
  maxTokensField: {
    type: "string",
    description:
      "the field that caps the answer: max_completion_tokens (default for api.openai.com) or max_tokens (default elsewhere: Ollama, LM Studio, OpenRouter)",
  },
  contextTokens: {
    type: "number",
    scoped: true,
    description: "the model's context window in tokens, when you want engram to size prompts to it",
  },
} as const satisfies Record<string, ProviderSetting>;

/** A setting name of the `openai` language model. */
export type OpenAILlmSettingName = keyof typeof OPENAI_LLM_SETTINGS;
