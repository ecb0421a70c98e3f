import type { ProviderSetting } from "@engram/core/driver";

/** The provider id: `embedding.provider: "openai"`, `ENGRAM_OPENAI_*` variables. */
export const PROVIDER_ID = "openai";

/** The SDK's default base URL (OpenAI's API). */
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** The defaults of {@link OpenAIEmbedderOptions}. */
export const DEFAULTS = {
  model: "text-embedding-3-small",
  timeoutMs: 60_000,
  /** OpenAI's limit on inputs per embeddings request. */
  maxBatchSize: 2048,
  maxTokensPerRequest: 8000,
  concurrency: 4,
  batch: false,
  batchMinTexts: 1000,
  batchPollIntervalMs: 5000,
  batchTimeoutMs: 3_600_000,
  batchConcurrency: 2,
  batchWait: true,
} as const;

/**
 * The most texts one call hands the Batch API when `batch` is on: OpenAI caps an `/v1/embeddings`
 * batch at 50,000 embedding inputs across all of its requests.
 */
export const BATCH_MAX_TEXTS = 50_000;

/** OpenAI's embedding models: native vector size, and whether `dimensions` can shorten it. */
export const KNOWN_MODELS: Readonly<Record<string, { dims: number; shortenable: boolean }>> = {
  "text-embedding-3-small": { dims: 1536, shortenable: true },
  "text-embedding-3-large": { dims: 3072, shortenable: true },
  "text-embedding-ada-002": { dims: 1536, shortenable: false },
};

/**
 * Every setting of the `openai` provider, as `embedding.providers.openai.<name>` in
 * `engram.config.json` and as `ENGRAM_OPENAI_<NAME>` (core derives the variable names).
 */
export const OPENAI_SETTINGS = {
  apiKey: {
    type: "string",
    env: ["OPENAI_API_KEY"],
    secret: true,
    description:
      "API key. Not needed for a local OpenAI-compatible server (Ollama, LM Studio, vLLM)",
  },
  baseUrl: {
    type: "string",
    env: ["OPENAI_BASE_URL"],
    description: `API base URL (default ${DEFAULT_BASE_URL}); e.g. http://localhost:11434/v1 for Ollama`,
  },
  model: {
    type: "string",
    description: `embedding model (default ${DEFAULTS.model})`,
  },
  dimensions: {
    type: "number",
    description:
      "vector size to ask the API for (sent as `dimensions`; text-embedding-3-* models only)",
  },
  dims: {
    type: "number",
    description:
      "vector size the model returns, for models engram does not know (e.g. 768 for nomic-embed-text); unset: one probe request learns it",
  },
  headers: {
    type: "json",
    description: 'extra HTTP headers as a JSON object, e.g. {"X-Proxy-Token": "…"}',
  },
  organization: {
    type: "string",
    env: ["OPENAI_ORG_ID"],
    description: "OpenAI organization id (sent as OpenAI-Organization)",
  },
  project: {
    type: "string",
    env: ["OPENAI_PROJECT_ID"],
    description: "OpenAI project id (sent as OpenAI-Project)",
  },
  timeoutMs: {
    type: "number",
    description: `how long one request may take, in ms (default ${DEFAULTS.timeoutMs})`,
  },
  maxBatchSize: {
    type: "number",
    description: `most texts per request (default ${DEFAULTS.maxBatchSize}, OpenAI's limit)`,
  },
  maxTokensPerRequest: {
    type: "number",
    description: `most estimated tokens per request (default ${DEFAULTS.maxTokensPerRequest})`,
  },
  concurrency: {
    type: "number",
    description: `requests in flight at once (default ${DEFAULTS.concurrency})`,
  },
  batch: {
    type: "boolean",
    description:
      "send large backfills through OpenAI's Batch API (half price, slower; default false)",
  },
  batchMinTexts: {
    type: "number",
    description: `use the Batch API only for calls of at least this many texts (default ${DEFAULTS.batchMinTexts})`,
  },
  batchPollIntervalMs: {
    type: "number",
    description: `how often to ask whether a batch is done, in ms (default ${DEFAULTS.batchPollIntervalMs})`,
  },
  batchTimeoutMs: {
    type: "number",
    description: `how long to wait for a batch before cancelling it, in ms (default ${DEFAULTS.batchTimeoutMs})`,
  },
  batchConcurrency: {
    type: "number",
    description: `batch jobs in flight at once (default ${DEFAULTS.batchConcurrency})`,
  },
  batchWait: {
    type: "boolean",
    description: "wait for batch results (default true; false is not supported yet and is refused)",
  },
} as const satisfies Record<string, ProviderSetting>;

/** A setting name of the `openai` provider. */
export type OpenAISettingName = keyof typeof OPENAI_SETTINGS;
