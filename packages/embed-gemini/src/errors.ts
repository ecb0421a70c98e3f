import {
  classifyHttpFailure,
  EmbeddingError,
  isProviderError,
  ModelError,
  type ProviderError,
  type ProviderErrorOptions,
  type ProviderFailure,
  type ProviderService,
} from "@engram/core/driver";
import { isDailyQuota, isKeyRejected, parseGoogleErrorBody } from "./google-error.js";
import { GEMINI_PROVIDER_ID } from "./settings.js";
import type { AttemptRecord } from "./transport.js";

/** What a failed call knew, to classify its failure. */
export interface FailureContext {
  /** The base URL, named in network and format errors (it holds no secret). */
  endpoint: string;
  /** Never shown: removed from any text that reaches an error. */
  apiKey: string;
  /** The answer's status and headers, when one arrived. */
  record: AttemptRecord;
  /** The caller's signal: when it aborted, its reason is thrown as is. */
  signal?: AbortSignal | undefined;
  /** Which errors to make: `EMBEDDING_*` (default) or `MODEL_*` (generateContent). */
  service?: ProviderService | undefined;
  /** What a 2xx body should have been, for the bad_response message (default batchEmbedContents). */
  expected?: string | undefined;
}

/** A classified failure of the Gemini provider, as an embedding or a language-model error. */
export function geminiError(
  service: ProviderService | undefined,
  kind: ProviderFailure,
  message: string,
  options: ProviderErrorOptions = {},
): ProviderError {
  return service === "model"
    ? new ModelError(kind, GEMINI_PROVIDER_ID, message, options)
    : new EmbeddingError(kind, GEMINI_PROVIDER_ID, message, options);
}

/**
 * Turn whatever `models.embedContent` threw into what `embedBatch` throws: the caller's abort
 * reason; an {@link EmbeddingError} already classified (transport failures, bad vectors); the
 * SDK's `ApiError` classified by status and Google's error details; a 2xx body the SDK could not
 * read as `bad_response`. `models.generateContent` failures the same way, as `ModelError`s.
 */
export function classifyFailure(error: unknown, context: FailureContext): unknown {
  if (context.signal?.aborted) return context.signal.reason;
  if (isProviderError(error)) return error;
  const answer = context.record.answer;
  if (isApiError(error)) {
    return httpError(error.status, error.message, answer?.headers, error, context);
  }
  if (answer && answer.status >= 300) {
    return httpError(answer.status, errorText(error), answer.headers, error, context);
  }
  if (answer) {
    return geminiError(
      context.service,
      "bad_response",
      `${context.endpoint} answered ${answer.status} with a body that is not a ${context.expected ?? "batchEmbedContents"} response (${redact(errorText(error), context.apiKey)})`,
      { cause: sanitizedCause(error, context.apiKey) },
    );
  }
  return error;
}

/**
 * Classify a failed HTTP answer. 429 RESOURCE_EXHAUSTED is `quota` (final) when a QuotaFailure
 * names a per-day quota, else `rate_limit`, waiting `Retry-After` or else RetryInfo's delay. A
 * 400 `API_KEY_INVALID` is `auth`. The rest follows the status ({@link embeddingErrorFromHttp}).
 */
function httpError(
  status: number,
  text: string,
  headers: Headers | undefined,
  cause: unknown,
  context: FailureContext,
): EmbeddingError {
  const body = parseGoogleErrorBody(text);
  const dailyQuota = status === 429 && body !== undefined && isDailyQuota(body);
  const kind = dailyQuota ? "quota" : body && isKeyRejected(body) ? "auth" : undefined;
  const summary = body ? [body.status, body.message].filter(Boolean).join(": ") : text;
  const classified = classifyHttpFailure({
    provider: GEMINI_PROVIDER_ID,
    status,
    message: shorten(redact(summary, context.apiKey)),
    kind,
    // A daily quota's RetryInfo names seconds, but the quota returns tomorrow: no delay.
    headers: dailyQuota ? undefined : headers,
    retryAfterMs: dailyQuota ? undefined : body?.retryDelayMs,
    cause: sanitizedCause(cause, context.apiKey),
  });
  return geminiError(context.service, classified.kind, classified.message, classified.options);
}

/** What the transport knew when a request failed before an answer was read. */
export interface TransportContext {
  endpoint: string;
  timeoutMs: number;
  /** The per-attempt signal the SDK gave `fetch` (aborted by the SDK's timeout or the caller). */
  attemptSignal: AbortSignal | undefined;
  /** The caller's signal. */
  signal?: AbortSignal | undefined;
  /** Which errors to make (default `embedding`). */
  service?: ProviderService | undefined;
}

const UNDICI_TIMEOUTS = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * Classify a failed `fetch` (or body read): the caller's abort passes through unchanged, the
 * SDK's timeout (`httpOptions.timeout` aborts the attempt) is `timeout`, the rest `network`.
 */
export function transportFailure(error: unknown, context: TransportContext): unknown {
  if (context.signal?.aborted) return error;
  const code = errorCode(error);
  if (context.attemptSignal?.aborted || (code && UNDICI_TIMEOUTS.has(code))) {
    return geminiError(
      context.service,
      "timeout",
      `no answer from ${context.endpoint} within ${context.timeoutMs} ms`,
      { cause: error },
    );
  }
  const detail = code ?? errorText(error);
  return geminiError(
    context.service,
    "network",
    `could not reach ${context.endpoint} (${detail})`,
    { cause: error },
  );
}

/** The SDK's `ApiError` (matched by shape: the SDK is loaded lazily). */
function isApiError(error: unknown): error is Error & { status: number } {
  return (
    error instanceof Error &&
    error.name === "ApiError" &&
    typeof (error as { status?: unknown }).status === "number"
  );
}

/** The most specific `code` on an error or its causes (`ECONNREFUSED`, `UND_ERR_SOCKET`). */
function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The cause to attach: the error itself unless its message holds the key. */
function sanitizedCause(error: unknown, apiKey: string): unknown {
  const text = errorText(error);
  return text.includes(apiKey) ? new Error(redact(text, apiKey)) : error;
}

function redact(text: string, apiKey: string): string {
  return apiKey ? text.split(apiKey).join("***") : text;
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 400 ? `${flat.slice(0, 399)}…` : flat;
}
