import { EngramError, type EngramErrorCode } from "../errors.js";

/**
 * Why a provider call failed. Retryable kinds (`rate_limit`, `network`, `timeout`, `server`,
 * `bad_response`) are retried with backoff; the others are final and are never retried.
 */
export type EmbeddingFailure =
  | "auth"
  | "quota"
  | "rate_limit"
  | "bad_input"
  | "too_long"
  | "network"
  | "timeout"
  | "server"
  | "bad_response";

const CODES: Record<EmbeddingFailure, EngramErrorCode> = {
  auth: "EMBEDDING_AUTH",
  quota: "EMBEDDING_QUOTA",
  rate_limit: "EMBEDDING_RATE_LIMIT",
  bad_input: "EMBEDDING_BAD_INPUT",
  too_long: "EMBEDDING_TOO_LONG",
  network: "EMBEDDING_NETWORK",
  timeout: "EMBEDDING_TIMEOUT",
  server: "EMBEDDING_SERVER",
  bad_response: "EMBEDDING_BAD_RESPONSE",
};

const RETRYABLE: ReadonlySet<EmbeddingFailure> = new Set([
  "rate_limit",
  "network",
  "timeout",
  "server",
  "bad_response",
]);

const HINTS: Record<EmbeddingFailure, string> = {
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

/**
 * A provider call that failed, classified so core can tell a retryable failure from a final one.
 * Every embedding driver throws these (see {@link embeddingErrorFromHttp} for HTTP APIs).
 */
export class EmbeddingError extends EngramError {
  /** What went wrong. */
  readonly kind: EmbeddingFailure;
  /** The provider id (`openai`, `gemini`, `local`, …). */
  readonly provider: string;
  /** HTTP status, when the failure came from an HTTP response. */
  readonly status: number | undefined;
  /** How long the provider asked us to wait (Retry-After), in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    kind: EmbeddingFailure,
    provider: string,
    message: string,
    options: { status?: number; retryAfterMs?: number; hint?: string; cause?: unknown } = {},
  ) {
    super(CODES[kind], `${provider}: ${message}`, {
      hint: options.hint ?? HINTS[kind],
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

/** True when `error` is an {@link EmbeddingError}. */
export function isEmbeddingError(error: unknown): error is EmbeddingError {
  return error instanceof EmbeddingError;
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
  kind?: EmbeddingFailure | undefined;
  /** A delay the body asked for (e.g. Gemini's RetryInfo), in ms; Retry-After headers win. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

const TOO_LONG =
  /maximum context length|too many tokens|too long|exceeds the (maximum|limit)|input length/i;

/**
 * Classify a failed HTTP response the way every HTTP embedding API means it: 401/403 auth,
 * 429 rate limit (the driver passes `kind: "quota"` when the body says the quota is used up),
 * 408 timeout, 413 or a "too long" 400 too_long, other 4xx bad input, 5xx server.
 */
export function embeddingErrorFromHttp(failure: HttpFailure): EmbeddingError {
  const { status } = failure;
  const message = failure.message?.trim() || `HTTP ${status}`;
  let kind: EmbeddingFailure;
  if (failure.kind) kind = failure.kind;
  else if (status === 401 || status === 403) kind = "auth";
  else if (status === 429) kind = "rate_limit";
  else if (status === 408) kind = "timeout";
  else if (status === 413 || (status === 400 && TOO_LONG.test(message))) kind = "too_long";
  else if (status >= 500) kind = "server";
  else if (status >= 400) kind = "bad_input";
  else kind = "bad_response";
  const retryAfterMs = retryAfterFromHeaders(failure.headers) ?? failure.retryAfterMs;
  return new EmbeddingError(kind, failure.provider, `HTTP ${status}: ${message}`, {
    status,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    cause: failure.cause,
  });
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
