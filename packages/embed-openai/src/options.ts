import { EmbeddingError } from "@engram/core/driver";
import { type ParsedBaseUrl, parseBaseUrl } from "./base-url.js";
import { invalidSetting, settingReader } from "./option-values.js";
import { DEFAULTS, KNOWN_MODELS, PROVIDER_ID } from "./settings.js";

/**
 * Options of {@link openaiEmbedder}; the same names as the provider's settings
 * (`embedding.providers.openai.*`). Nothing is read from the environment here: the provider
 * descriptor resolves `OPENAI_API_KEY` and `ENGRAM_OPENAI_*` before calling the factory.
 */
export interface OpenAIEmbedderOptions {
  /** API key. Optional for a `baseUrl` other than api.openai.com (a placeholder is sent). */
  apiKey?: string | undefined;
  /** API base URL (default `https://api.openai.com/v1`). Never shown with credentials or query. */
  baseUrl?: string | undefined;
  /** Embedding model (default `text-embedding-3-small`). */
  model?: string | undefined;
  /** Vector size to request (`dimensions`; text-embedding-3-* and compatible servers). */
  dimensions?: number | undefined;
  /**
   * Vector size the model returns, for a model engram does not know. When neither this nor
   * `dimensions` is set for an unknown model, {@link openaiEmbedder} makes one probe request.
   */
  dims?: number | undefined;
  /** Extra HTTP headers sent with every request (e.g. for a proxy). */
  headers?: Record<string, string> | undefined;
  /** OpenAI organization id (`OpenAI-Organization` header). */
  organization?: string | undefined;
  /** OpenAI project id (`OpenAI-Project` header). */
  project?: string | undefined;
  /** How long one request may take, in ms (default 60000). */
  timeoutMs?: number | undefined;
  /** Most texts per request (default 2048). */
  maxBatchSize?: number | undefined;
  /** Most estimated tokens per request (default 8000). */
  maxTokensPerRequest?: number | undefined;
  /** Requests in flight at once (default 4). */
  concurrency?: number | undefined;
  /** Send calls of at least `batchMinTexts` texts through the Batch API (default false). */
  batch?: boolean | undefined;
  /** Smallest call that goes through the Batch API (default 1000). */
  batchMinTexts?: number | undefined;
  /** How often to poll a batch, in ms (default 5000). */
  batchPollIntervalMs?: number | undefined;
  /** How long to wait for a batch before cancelling it, in ms (default 3600000). */
  batchTimeoutMs?: number | undefined;
  /** Batch jobs in flight at once (default 2). */
  batchConcurrency?: number | undefined;
  /** Wait for batch results (default true). `false` is not supported yet and is refused. */
  batchWait?: boolean | undefined;
}

/** {@link OpenAIEmbedderOptions} validated, with defaults applied. */
export interface ResolvedOptions {
  apiKey: string | undefined;
  baseUrl: ParsedBaseUrl;
  model: string;
  dimensions: number | undefined;
  /** The vector size when it is known without a request; undefined: probe. */
  dims: number | undefined;
  headers: Record<string, string>;
  organization: string | undefined;
  project: string | undefined;
  timeoutMs: number;
  maxBatchSize: number;
  maxTokensPerRequest: number;
  concurrency: number;
  batch: {
    enabled: boolean;
    minTexts: number;
    pollIntervalMs: number;
    timeoutMs: number;
    concurrency: number;
  };
}

/**
 * Validate options and apply defaults.
 *
 * @throws EngramError `CONFIG_INVALID` for a value of the wrong type or range, or `dims` /
 *   `dimensions` that contradict the model.
 * @throws EmbeddingError `auth` when OpenAI's own API is used without a key; `bad_input` for
 *   `batch: true` with `batchWait: false` (not supported yet).
 */
export function resolveOptions(options: OpenAIEmbedderOptions): ResolvedOptions {
  const { optionalString, optionalBoolean, optionalCount, headersOption } = settingReader(
    options as Record<string, unknown>,
    "embedding",
  );
  const baseUrl = parseBaseUrl(optionalString("baseUrl"));
  const apiKey = optionalString("apiKey");
  if (!apiKey && baseUrl.isOpenAI) {
    throw new EmbeddingError("auth", PROVIDER_ID, "no API key for api.openai.com", {
      hint: "set OPENAI_API_KEY (or embedding.providers.openai.apiKey), or point baseUrl at a local OpenAI-compatible server",
    });
  }
  const model = optionalString("model") ?? DEFAULTS.model;
  const dimensions = optionalCount("dimensions");
  const declaredDims = optionalCount("dims");
  const batchEnabled = optionalBoolean("batch") ?? DEFAULTS.batch;
  if (batchEnabled && optionalBoolean("batchWait") === false) {
    throw new EmbeddingError(
      "bad_input",
      PROVIDER_ID,
      "batchWait: false is not supported yet: engram needs the vectors of a batch before it can index",
      { hint: "remove batchWait (or set it to true) in embedding.providers.openai" },
    );
  }
  return {
    apiKey,
    baseUrl,
    model,
    dimensions,
    dims: knownDims(model, dimensions, declaredDims),
    headers: headersOption(),
    organization: optionalString("organization"),
    project: optionalString("project"),
    timeoutMs: optionalCount("timeoutMs") ?? DEFAULTS.timeoutMs,
    maxBatchSize: optionalCount("maxBatchSize") ?? DEFAULTS.maxBatchSize,
    maxTokensPerRequest: optionalCount("maxTokensPerRequest") ?? DEFAULTS.maxTokensPerRequest,
    concurrency: optionalCount("concurrency") ?? DEFAULTS.concurrency,
    batch: {
      enabled: batchEnabled,
      minTexts: optionalCount("batchMinTexts") ?? DEFAULTS.batchMinTexts,
      pollIntervalMs: optionalCount("batchPollIntervalMs") ?? DEFAULTS.batchPollIntervalMs,
      timeoutMs: optionalCount("batchTimeoutMs") ?? DEFAULTS.batchTimeoutMs,
      concurrency: optionalCount("batchConcurrency") ?? DEFAULTS.batchConcurrency,
    },
  };
}

/** The vector size implied by the model and settings, or undefined when only a probe can tell. */
function knownDims(
  model: string,
  dimensions: number | undefined,
  declared: number | undefined,
): number | undefined {
  const known = KNOWN_MODELS[model];
  if (known && dimensions !== undefined) {
    if (!known.shortenable) {
      throw invalidSetting(
        "embedding",
        "dimensions",
        `${model} does not support dimensions`,
        "remove dimensions",
      );
    }
    if (dimensions > known.dims) {
      throw invalidSetting(
        "embedding",
        "dimensions",
        `${model} makes at most ${known.dims} dimensions, got ${dimensions}`,
        `set dimensions to ${known.dims} or less`,
      );
    }
  }
  const implied = dimensions ?? known?.dims;
  if (declared !== undefined && implied !== undefined && declared !== implied) {
    throw invalidSetting(
      "embedding",
      "dims",
      `is ${declared} but ${model}${dimensions !== undefined ? ` with dimensions ${dimensions}` : ""} returns ${implied}`,
      known
        ? "remove dims, or set dimensions to shorten the vectors"
        : "make dims match dimensions",
    );
  }
  return declared ?? implied;
}
