import type { JsonSchema } from "../agent/tools-definitions.js";

/**
 * The language-model contract, beside the embedding one ({@link Embedder}). A driver turns a
 * conversation into text, or into a value matching a JSON Schema; core retries, breaks the circuit,
 * falls back and counts tokens around it. Drivers make one attempt per call (no retries of their
 * own) and throw classified provider errors, so core can tell a retryable failure from a final one.
 *
 * One provider package serves embeddings and chat for its API: `@engram/embed-openai` (Chat
 * Completions, `response_format: json_schema`), `@engram/embed-gemini` (`generateContent` with
 * `responseSchema`), `@engram/embed-local` (node-llama-cpp with a JSON-Schema grammar).
 */
export interface LanguageModel {
  /** Provider id, e.g. `openai`, `gemini`, `local`. */
  readonly id: string;
  /** Model name (as the provider knows it, or the GGUF file's name). */
  readonly model: string;
  /** Where the model runs (base URL, model file path); never includes secrets. */
  readonly endpoint?: string;
  /** The model's context window in tokens, when known (prompts are sized to fit it). */
  readonly contextTokens?: number;

  /**
   * One completion. With `schema`, the answer is parsed and returned as `value`, and drivers use
   * the provider's structured-output mode so the text is valid JSON for that schema (a driver
   * whose answer does not parse throws a `bad_response` provider error).
   */
  generate<T = unknown>(request: GenerateRequest): Promise<GenerateResult<T>>;
  /** Release resources (models, sockets). Optional. */
  close?(): Promise<void>;
}

/** One turn of a conversation. The system prompt goes in {@link GenerateRequest.system}. */
export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

/** What to generate. */
export interface GenerateRequest {
  /** System instructions. */
  system?: string;
  /** The conversation so far; the model answers the last user message. */
  messages: readonly ChatMessage[];
  /**
   * When set, the answer must be JSON matching this schema (the subset OpenAI strict mode, Gemini
   * and GBNF grammars share); it is returned parsed as `value`.
   */
  schema?: JsonSchema;
  /** A short name for the schema (OpenAI's `json_schema.name`); default `answer`. */
  schemaName?: string;
  /** Most tokens to generate. */
  maxTokens?: number;
  /** Sampling temperature (default: the driver's, usually 0 for structured output). */
  temperature?: number;
  signal?: AbortSignal;
}

/** Tokens a call used, as the provider counted them (estimated when it does not say). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The answer of {@link LanguageModel.generate}. */
export interface GenerateResult<T = unknown> {
  /** The raw text of the answer. */
  text: string;
  /** The parsed answer, present when the request had a `schema`. */
  value?: T;
  usage: TokenUsage;
  /** Why generation stopped: `stop` (finished), `length` (hit `maxTokens`), or the provider's word. */
  finishReason: string;
  /** The model that answered, as the provider reported it (may be more precise than `model`). */
  model: string;
  /**
   * The provider id that answered. Set by core's chain (a fallback may answer instead of the
   * primary); drivers may leave it out.
   */
  provider?: string;
}
