import { EngramError, type EngramErrorCode } from "../errors.js";

/**
 * Why a provider call failed. Retryable kinds (`rate_limit`, `network`, `timeout`, `server`,
 * `bad_response`) are retried with backoff; the others are final and are never retried. Embedding
 * providers and language models share these kinds (and {@link classifyHttpFailure}).
 */
export type ProviderFailure =
  | "auth"
  | "quota"
  | "rate_limit"
  | "bad_input"
  | "too_long"
  | "network"
  | "timeout"
  | "server"
  | "bad_response";

/** Why an embedding call failed (see {@link ProviderFailure}). */
export type EmbeddingFailure = ProviderFailure;

/** What kind of provider failed: its error codes start with `EMBEDDING_` or `MODEL_`. */
export type ProviderService = "embedding" | "model";

const KINDS: readonly ProviderFailure[] = [
  "auth",
  "quota",
  "rate_limit",
  "bad_input",
  "too_long",
  "network",
  "timeout",
  "server",
  "bad_response",
];

const PREFIX: Record<ProviderService, string> = { embedding: "EMBEDDING_", model: "MODEL_" };

/** The error code of a failure kind: `EMBEDDING_RATE_LIMIT`, `MODEL_AUTH`, … */
export function providerErrorCode(
  service: ProviderService,
  kind: ProviderFailure,
): EngramErrorCode {
  return `${PREFIX[service]}${kind.toUpperCase()}` as EngramErrorCode;
}

const RETRYABLE: ReadonlySet<ProviderFailure> = new Set([
  "rate_limit",
  "network",
  "timeout",
  "server",
  "bad_response",
]);

/** True when trying again later may succeed: quota, auth and input errors are final. */
export function isRetryableFailure(kind: ProviderFailure): boolean {
  return RETRYABLE.has(kind);
}

const HINTS: Record<ProviderFailure, string> = {
  auth: "check the provider's API key and that it may use this model",
  quota:
    "the account's quota is used up: add credit or raise the limit; engram will not retry until then",
  rate_limit:
    "engram retries after the delay the provider asks for; lower the provider's concurrency if this persists",
  bad_input: "check the model name and the provider options in engram.config.json",
  too_long: "lower chunking.tokens in engram.config.json, or use a model with a longer input limit",
  network: "check the base URL and the network; engram retries with backoff",
  timeout: "the provider was too slow; raise its timeoutMs or lower its batch size",
  server:
    "the provider failed; engram retries with backoff and falls back if a fallback is configured",
  bad_response: "the endpoint did not answer in the provider's format; check its base URL",
};

/** Options of a {@link ProviderError}. */
export interface ProviderErrorOptions {
  status?: number | undefined;
  retryAfterMs?: number | undefined;
  hint?: string | undefined;
  cause?: unknown;
}

/**
 * A provider call that failed, classified so core can tell a retryable failure from a final one.
 * {@link EmbeddingError} (codes `EMBEDDING_*`) and `ModelError` (codes `MODEL_*`) are its two
 * kinds. Code that must work with errors from another installed copy of `@engram/core` reads
 * them with {@link providerFailureOf} (by code) rather than `instanceof`.
 */
export class ProviderError extends EngramError {
  /** What went wrong. */
  readonly kind: ProviderFailure;
  /** The provider id (`openai`, `gemini`, `local`, …). */
  readonly provider: string;
  /** HTTP status, when the failure came from an HTTP response. */
  readonly status: number | undefined;
  /** How long the provider asked us to wait (Retry-After), in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    service: ProviderService,
    kind: ProviderFailure,
    provider: string,
    message: string,
    options: ProviderErrorOptions & { defaultHint?: string } = {},
  ) {
    super(providerErrorCode(service, kind), `${provider}: ${message}`, {
      hint: options.hint ?? options.defaultHint ?? HINTS[kind],
      cause: options.cause,
    });
    this.kind = kind;
    this.provider = provider;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** True when trying again later may succeed. Quota, auth and input errors are final. */
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/**
 * A provider call that failed, classified so core can tell a retryable failure from a final one.
 * Every embedding driver throws these (see {@link embeddingErrorFromHttp} for HTTP APIs).
 */
export class EmbeddingError extends ProviderError {
  constructor(
    kind: EmbeddingFailure,
    provider: string,
    message: string,
    options: ProviderErrorOptions = {},
  ) {
    super("embedding", kind, provider, message, options);
  }
}

/** What a classified provider failure says, read from any error (see {@link providerFailureOf}). */
export interface ProviderFailureInfo {
  service: ProviderService;
  kind: ProviderFailure;
  retryable: boolean;
  /** The delay the provider asked for, in ms. */
  retryAfterMs: number | undefined;
}

const BY_CODE = new Map<string, { service: ProviderService; kind: ProviderFailure }>(
  (Object.keys(PREFIX) as ProviderService[]).flatMap((service) =>
    KINDS.map((kind) => [providerErrorCode(service, kind), { service, kind }] as const),
  ),
);

/**
 * The classification of a provider failure, read from its `code` (`EMBEDDING_RATE_LIMIT`,
 * `MODEL_QUOTA`, …) rather than its class, so errors thrown by a driver built against another
 * installed copy of `@engram/core` are classified the same. Undefined for anything else.
 */
export function providerFailureOf(error: unknown): ProviderFailureInfo | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  const found = typeof code === "string" ? BY_CODE.get(code) : undefined;
  if (!found) return undefined;
  const delay = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return {
    ...found,
    retryable: RETRYABLE.has(found.kind),
    retryAfterMs: typeof delay === "number" && delay >= 0 ? delay : undefined,
  };
}

/** True when `error` is a classified provider failure of any service (by code). */
export function isProviderError(error: unknown): error is ProviderError {
  return providerFailureOf(error) !== undefined;
}

/** True when `error` is an {@link EmbeddingError} (by its `EMBEDDING_*` code). */
export function isEmbeddingError(error: unknown): error is EmbeddingError {
  return providerFailureOf(error)?.service === "embedding";
}

/** What a driver knows about a failed HTTP response. */
export interface HttpFailure {
  provider: string;
  status: number;
  /** The provider's error message (from the body), if any. */
  message?: string | undefined;
  /** Response headers (Retry-After, retry-after-ms). */
  headers?: Headers | Record<string, string | null | undefined> | undefined;
  /** Override the kind the status implies (e.g. a 429 that means "quota exhausted"). */
  kind?: ProviderFailure | undefined;
  /** A delay the body asked for (e.g. Gemini's RetryInfo), in ms; Retry-After headers win. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

const TOO_LONG =
  /maximum context length|context[ _]length[ _]exceeded|context window|too many tokens|too long|exceeds the (maximum|limit)|input length/i;

/** A failed HTTP response, classified: what {@link classifyHttpFailure} returns. */
export interface HttpClassification {
  kind: ProviderFailure;
  /** `HTTP <status>: <provider's message>`. */
  message: string;
  options: ProviderErrorOptions;
}

/**
 * Classify a failed HTTP response the way every HTTP model API means it: 401/403 auth, 429 rate
 * limit (the driver passes `kind: "quota"` when the body says the quota is used up), 408 timeout,
 * 413 or a "too long" / "context length exceeded" 400 too_long, other 4xx bad input, 5xx server.
 * One classification for embeddings and language models ({@link embeddingErrorFromHttp},
 * `modelErrorFromHttp`).
 */
export function classifyHttpFailure(failure: HttpFailure): HttpClassification {
  const { status } = failure;
  const message = failure.message?.trim() || `HTTP ${status}`;
  let kind: ProviderFailure;
  if (failure.kind) kind = failure.kind;
  else if (status === 401 || status === 403) kind = "auth";
  else if (status === 429) kind = "rate_limit";
  else if (status === 408) kind = "timeout";
  else if (status === 413 || (status === 400 && TOO_LONG.test(message))) kind = "too_long";
  else if (status >= 500) kind = "server";
  else if (status >= 400) kind = "bad_input";
  else kind = "bad_response";
  const retryAfterMs = retryAfterFromHeaders(failure.headers) ?? failure.retryAfterMs;
  return {
    kind,
    message: `HTTP ${status}: ${message}`,
    options: {
      status,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      cause: failure.cause,
    },
  };
}

/** A failed HTTP response of an embedding API as an {@link EmbeddingError} ({@link classifyHttpFailure}). */
export function embeddingErrorFromHttp(failure: HttpFailure): EmbeddingError {
  const { kind, message, options } = classifyHttpFailure(failure);
  return new EmbeddingError(kind, failure.provider, message, options);
}

/**
 * The delay a response asks for: `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as
 * an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterFromHeaders(headers: HttpFailure["headers"]): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | undefined => {
    if (typeof (headers as Headers).get === "function") {
      return (headers as Headers).get(name) ?? undefined;
    }
    const record = headers as Record<string, string | null | undefined>;
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    return key ? (record[key] ?? undefined) : undefined;
  };
  const ms = Number(get("retry-after-ms"));
  if (get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Parse a duration such as Gemini's `"17s"` or `"1.5s"` into ms. */
export function parseDurationMs(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}
