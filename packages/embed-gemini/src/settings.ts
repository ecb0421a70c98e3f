import type { ProviderSetting } from "@engram/core/driver";

/** The provider id: `embedding.provider: "gemini"`, `ENGRAM_GEMINI_*` variables. */
export const GEMINI_PROVIDER_ID = "gemini";

/** Defaults of the Gemini driver's settings. */
export const GEMINI_DEFAULTS = {
  /** The Gemini Developer API (the SDK's own default). */
  baseUrl: "https://generativelanguage.googleapis.com",
  model: "gemini-embedding-001",
  taskType: "RETRIEVAL_DOCUMENT",
  queryTaskType: "RETRIEVAL_QUERY",
  timeoutMs: 60_000,
  /** `batchEmbedContents` takes at most 100 requests per call. */
  maxBatchSize: 100,
  /**
   * gemini-embedding-001 reads at most 2048 tokens per text and the API has no separate
   * per-request token cap, so a full batch is bounded by 100 × 2048.
   */
  maxTokensPerRequest: 100 * 2048,
  concurrency: 2,
} as const;

/** The conventional variables holding a Gemini API key, in the order engram reads them. */
export const GEMINI_KEY_VARIABLES = ["GEMINI_API_KEY", "GOOGLE_API_KEY"] as const;

/** The conventional variable the Google Gen AI SDK reads for a custom Gemini base URL. */
export const GEMINI_BASE_URL_VARIABLE = "GOOGLE_GEMINI_BASE_URL";

/**
 * Every setting of the Gemini provider, as `embedding.providers.gemini.<name>` in
 * `engram.config.json` and as `ENGRAM_GEMINI_<NAME>` (core derives the variable names).
 */
export const geminiSettings = {
  apiKey: {
    type: "string",
    env: GEMINI_KEY_VARIABLES,
    secret: true,
    description: "Gemini API key (Google AI Studio); sent as the x-goog-api-key header",
  },
  baseUrl: {
    type: "string",
    env: [GEMINI_BASE_URL_VARIABLE],
    description: `API base URL, without the version (default ${GEMINI_DEFAULTS.baseUrl})`,
  },
  model: {
    type: "string",
    description: `embedding model (default ${GEMINI_DEFAULTS.model})`,
  },
  dims: {
    type: "number",
    description:
      "vector size, needed only for models engram does not know (gemini-embedding-001: 3072, text-embedding-004: 768)",
  },
  outputDimensionality: {
    type: "number",
    description:
      "ask the model for shorter vectors (gemini-embedding-001: 128–3072; 768, 1536 or 3072 recommended); unset: the model's full size",
  },
  taskType: {
    type: "string",
    description: `task type for documents (default ${GEMINI_DEFAULTS.taskType})`,
  },
  queryTaskType: {
    type: "string",
    description: `task type for search queries (default ${GEMINI_DEFAULTS.queryTaskType})`,
  },
  headers: {
    type: "json",
    description: "extra HTTP headers, a JSON object of strings (e.g. for a proxy)",
  },
  timeoutMs: {
    type: "number",
    description: `how long one request may take, in ms (default ${GEMINI_DEFAULTS.timeoutMs})`,
  },
  maxBatchSize: {
    type: "number",
    description: `most texts per request, at most 100 (default ${GEMINI_DEFAULTS.maxBatchSize})`,
  },
  maxTokensPerRequest: {
    type: "number",
    description: `most estimated tokens per request (default ${GEMINI_DEFAULTS.maxTokensPerRequest}: 100 texts × 2048)`,
  },
  concurrency: {
    type: "number",
    description: `most requests in flight at once (default ${GEMINI_DEFAULTS.concurrency})`,
  },
} as const satisfies Record<string, ProviderSetting>;

/** The name of a Gemini setting. */
export type GeminiSettingName = keyof typeof geminiSettings;
