import { EmbeddingError, EngramError } from "@engram/core/driver";
import { bareModelName, knownGeminiModel } from "./models.js";
import {
  GEMINI_BASE_URL_VARIABLE,
  GEMINI_DEFAULTS,
  GEMINI_KEY_VARIABLES,
  GEMINI_PROVIDER_ID,
} from "./settings.js";

/** Options of {@link geminiEmbedder}; every one is also a provider setting of the same name. */
export interface GeminiEmbedderOptions {
  /** Gemini API key. Default: `GEMINI_API_KEY`, then `GOOGLE_API_KEY`. */
  apiKey?: string;
  /** API base URL without the version. Default: `GOOGLE_GEMINI_BASE_URL`, else Google's. */
  baseUrl?: string;
  /** Embedding model (default `gemini-embedding-001`). */
  model?: string;
  /** Vector size; needed only for models engram does not know. */
  dims?: number;
  /** Ask for shorter vectors (gemini-embedding-001: 128–3072). Unset: the model's full size. */
  outputDimensionality?: number;
  /** Task type for documents (default `RETRIEVAL_DOCUMENT`). */
  taskType?: string;
  /** Task type for search queries (default `RETRIEVAL_QUERY`). */
  queryTaskType?: string;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** How long one request may take, in ms (default 60000). */
  timeoutMs?: number;
  /** Most texts per request, at most 100 (default 100). */
  maxBatchSize?: number;
  /** Most estimated tokens per request (default 204800). */
  maxTokensPerRequest?: number;
  /** Most requests in flight at once (default 2). */
  concurrency?: number;
}

/** {@link GeminiEmbedderOptions} checked, with every default applied. */
export interface ResolvedGeminiOptions {
  apiKey: string;
  /** Base URL without a trailing slash: also the embedder's `endpoint`. */
  baseUrl: string;
  /** Model name without the `models/` prefix. */
  model: string;
  dims: number;
  outputDimensionality: number | undefined;
  taskType: string;
  queryTaskType: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxBatchSize: number;
  maxTokensPerRequest: number;
  concurrency: number;
}

/**
 * Fill the API key and base URL from the conventional variables (`GEMINI_API_KEY`, then
 * `GOOGLE_API_KEY`; `GOOGLE_GEMINI_BASE_URL`) where the options leave them unset.
 */
export function withConventionalEnv<T extends { apiKey?: string; baseUrl?: string }>(
  options: T,
  env: Readonly<Record<string, string | undefined>>,
): T & { apiKey?: string; baseUrl?: string } {
  const apiKey =
    nonEmpty(options.apiKey) ??
    GEMINI_KEY_VARIABLES.map((name) => nonEmpty(env[name])).find(Boolean);
  const baseUrl = nonEmpty(options.baseUrl) ?? nonEmpty(env[GEMINI_BASE_URL_VARIABLE]);
  return {
    ...options,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
  };
}

/**
 * Check the options and apply the defaults.
 *
 * @throws EmbeddingError `auth` when there is no API key.
 * @throws EngramError `CONFIG_INVALID` for a value the API would refuse, or a model whose vector
 *   size is unknown and not given as `dims`.
 */
export function resolveGeminiOptions(options: GeminiEmbedderOptions): ResolvedGeminiOptions {
  const apiKey = nonEmpty(options.apiKey);
  if (apiKey === undefined) {
    throw new EmbeddingError("auth", GEMINI_PROVIDER_ID, "no API key", {
      hint: "set GEMINI_API_KEY (or GOOGLE_API_KEY, or embedding.providers.gemini.apiKey); create a key at https://aistudio.google.com/apikey",
    });
  }
  if (apiKey.startsWith("auth_tokens/")) {
    throw invalid(
      "apiKey",
      "is an ephemeral token, which only the Live API accepts",
      "use a Gemini API key",
    );
  }
  const model = bareModelName(text(options.model, "model") ?? GEMINI_DEFAULTS.model);
  if (model === "" || /\.\.|[?&#/]/.test(model)) {
    throw invalid(
      "model",
      `is not a model name: ${JSON.stringify(options.model)}`,
      "use a name such as gemini-embedding-001",
    );
  }
  const outputDimensionality = positiveInteger(
    options.outputDimensionality,
    "outputDimensionality",
  );
  return {
    apiKey,
    baseUrl: checkBaseUrl(text(options.baseUrl, "baseUrl") ?? GEMINI_DEFAULTS.baseUrl),
    model,
    dims: vectorSize(model, positiveInteger(options.dims, "dims"), outputDimensionality),
    outputDimensionality,
    taskType: text(options.taskType, "taskType") ?? GEMINI_DEFAULTS.taskType,
    queryTaskType: text(options.queryTaskType, "queryTaskType") ?? GEMINI_DEFAULTS.queryTaskType,
    headers: checkHeaders(options.headers),
    timeoutMs: positiveInteger(options.timeoutMs, "timeoutMs") ?? GEMINI_DEFAULTS.timeoutMs,
    maxBatchSize: batchSize(options.maxBatchSize),
    maxTokensPerRequest:
      positiveInteger(options.maxTokensPerRequest, "maxTokensPerRequest") ??
      GEMINI_DEFAULTS.maxTokensPerRequest,
    concurrency: positiveInteger(options.concurrency, "concurrency") ?? GEMINI_DEFAULTS.concurrency,
  };
}

function vectorSize(model: string, dims: number | undefined, output: number | undefined): number {
  const known = knownGeminiModel(model);
  if (output !== undefined) {
    if (known && (output < known.minDims || output > known.maxDims)) {
      throw invalid(
        "outputDimensionality",
        `must be between ${known.minDims} and ${known.maxDims} for ${model}, got ${output}`,
        `pick a size in that range (768, 1536 or 3072 for gemini-embedding-001)`,
      );
    }
    if (dims !== undefined && dims !== output) {
      throw invalid(
        "dims",
        `is ${dims} but outputDimensionality is ${output}`,
        "drop dims: outputDimensionality sets the vector size",
      );
    }
    return output;
  }
  if (known) {
    if (dims !== undefined && dims !== known.dims) {
      throw invalid(
        "dims",
        `is ${dims} but ${model} answers ${known.dims} values`,
        `set outputDimensionality: ${dims} to get shorter vectors, or drop dims`,
      );
    }
    return known.dims;
  }
  if (dims === undefined) {
    throw invalid(
      "dims",
      `is needed: engram does not know the vector size of ${model}`,
      `set dims to the size ${model} answers`,
    );
  }
  return dims;
}

/** Which config section a setting lives in: `embedding.providers.gemini` or `llm.providers.gemini`. */
export type GeminiSection = "embedding" | "llm";

/** A base URL without credentials, query or fragment, and without a trailing slash. */
export function checkBaseUrl(value: string, section: GeminiSection = "embedding"): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(
      "baseUrl",
      `is not a URL: ${value}`,
      "use e.g. https://generativelanguage.googleapis.com",
      section,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalid(
      "baseUrl",
      `must be http(s), got ${url.protocol}`,
      "use e.g. https://generativelanguage.googleapis.com",
      section,
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    // The base URL is the index identity's endpoint and appears in errors: it must hold no secret.
    throw invalid(
      "baseUrl",
      "must not hold credentials, a query string or a fragment",
      "put the key in apiKey and other secrets in headers",
      section,
    );
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/** Extra headers: an object of header names to strings. */
export function checkHeaders(
  value: unknown,
  section: GeminiSection = "embedding",
): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw invalid(
      "headers",
      "must be an object of header names to strings",
      'use e.g. {"x-proxy-token": "…"}',
      section,
    );
  }
  for (const [name, header] of Object.entries(value)) {
    if (typeof header !== "string") {
      throw invalid(
        `headers.${name}`,
        "must be a string",
        'use e.g. {"x-proxy-token": "…"}',
        section,
      );
    }
  }
  return { ...(value as Record<string, string>) };
}

function batchSize(value: unknown): number {
  const size = positiveInteger(value, "maxBatchSize") ?? GEMINI_DEFAULTS.maxBatchSize;
  if (size > GEMINI_DEFAULTS.maxBatchSize) {
    throw invalid(
      "maxBatchSize",
      `must be at most 100 (batchEmbedContents' limit), got ${size}`,
      "set it to 100 or less",
    );
  }
  return size;
}

/** A positive whole number, or undefined when unset. */
export function positiveInteger(
  value: unknown,
  name: string,
  section: GeminiSection = "embedding",
): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw invalid(
      name,
      `must be a positive whole number, got ${JSON.stringify(value)}`,
      `fix ${name}`,
      section,
    );
  }
  return value;
}

/** A trimmed string, or undefined when unset or blank. */
export function text(
  value: unknown,
  name: string,
  section: GeminiSection = "embedding",
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw invalid(name, `must be a string, got ${JSON.stringify(value)}`, `fix ${name}`, section);
  }
  return nonEmpty(value);
}

export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** `CONFIG_INVALID` naming `<section>.providers.gemini.<setting>`. */
export function invalid(
  setting: string,
  problem: string,
  fix: string,
  section: GeminiSection = "embedding",
): EngramError {
  return new EngramError(
    "CONFIG_INVALID",
    `${section}.providers.${GEMINI_PROVIDER_ID}.${setting} ${problem}`,
    { hint: fix },
  );
}
