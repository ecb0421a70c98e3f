import {
  classifyHttpFailure,
  EmbeddingError,
  isProviderError,
  ModelError,
  type ProviderError,
  type ProviderFailure,
  type ProviderService,
} from "@engram/core/driver";
import type * as OpenAISdk from "openai";
import { PROVIDER_ID } from "./settings.js";

/** The `openai` module, loaded lazily; its error classes classify failures. */
export type Sdk = typeof OpenAISdk;

/** What the error mapper needs besides the error. */
export interface ErrorContext {
  sdk: Sdk;
  /** Strings that must never appear in a message (the API key). */
  secrets: readonly string[];
  /** Where the request went (for network messages; never holds secrets). */
  endpoint: string;
  /** Which errors to make: `EMBEDDING_*` (default) or `MODEL_*` ones. */
  service?: ProviderService;
}

/** A classified failure of this provider, as an embedding or a language-model error. */
export function openaiError(
  service: ProviderService,
  kind: ProviderFailure,
  message: string,
  options: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
): ProviderError {
  return service === "model"
    ? new ModelError(kind, PROVIDER_ID, message, options)
    : new EmbeddingError(kind, PROVIDER_ID, message, options);
}

/**
 * Classify anything a request through the SDK threw as an {@link EmbeddingError} (or, with
 * `service: "model"`, a `ModelError`: chat requests fail the same ways):
 *
 * - `APIConnectionTimeoutError` → `timeout`; other `APIConnectionError`s (refused, reset, DNS) →
 *   `network`;
 * - an `APIError` with a status → core's {@link embeddingErrorFromHttp} (401/403 auth, 429
 *   rate_limit, 400 "maximum context length" too_long, other 4xx bad_input, 5xx server), except a
 *   429 whose `code` or `type` is `insufficient_quota`, which is `quota` (final). A 429's delay comes
 *   from `retry-after-ms` / `retry-after`, else from the message ("Please try again in 976ms"),
 *   else from `x-ratelimit-reset-*`;
 * - a body that is not JSON (SyntaxError) or cannot be decoded → `bad_response`; a body cut off
 *   mid-way (TypeError from fetch) → `network`.
 *
 * Messages are scrubbed of the API key and of anything shaped like `sk-…` (OpenAI echoes a masked
 * key in 401 messages). The SDK error is not attached as `cause`, so the key cannot leak through it.
 */
export function toProviderError(error: unknown, context: ErrorContext): ProviderError {
  if (isProviderError(error)) return error;
  const { sdk } = context;
  const service = context.service ?? "embedding";
  const scrub = (text: string) => scrubSecrets(text, context.secrets);
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return openaiError(service, "timeout", `${context.endpoint} did not answer in time`);
  }
  if (error instanceof sdk.APIConnectionError) {
    const detail = connectionDetail(error);
    return openaiError(
      service,
      "network",
      scrub(`cannot reach ${context.endpoint}${detail ? ` (${detail})` : ""}`),
    );
  }
  if (error instanceof sdk.APIError && typeof error.status === "number") {
    const body = (error.error ?? {}) as { message?: unknown; code?: unknown; type?: unknown };
    const raw = typeof body.message === "string" ? body.message : error.message;
    const message = scrub(raw) + (error.requestID ? ` (request ${error.requestID})` : "");
    const quota =
      error.status === 429 &&
      (body.code === "insufficient_quota" || body.type === "insufficient_quota");
    const classified = classifyHttpFailure({
      provider: PROVIDER_ID,
      status: error.status,
      message,
      headers: error.headers,
      kind: quota ? "quota" : undefined,
      retryAfterMs:
        error.status === 429 && !quota
          ? (retryAfterFromMessage(raw) ?? retryAfterFromRateLimitHeaders(error.headers))
          : undefined,
    });
    return openaiError(service, classified.kind, classified.message, classified.options);
  }
  const kind: ProviderFailure = error instanceof TypeError ? "network" : "bad_response";
  const text = error instanceof Error ? error.message : String(error);
  return openaiError(
    service,
    kind,
    scrub(
      kind === "network"
        ? `the connection to ${context.endpoint} broke: ${text}`
        : `unreadable response from ${context.endpoint}: ${text}`,
    ),
  );
}

/** {@link toProviderError} for embedding requests. */
export function toEmbeddingError(error: unknown, context: ErrorContext): EmbeddingError {
  return toProviderError(error, { ...context, service: "embedding" }) as EmbeddingError;
}

/** `text` with every secret and every `sk-…` token replaced by `***`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join("***");
  }
  return out.replace(/\bsk-[A-Za-z0-9_*-]{2,}/g, "sk-***");
}

/**
 * The delay OpenAI's 429 message names: "Please try again in 976ms", "in 1.5s", "in 6m0s",
 * "in 1h2m3s". Undefined when the message names none.
 */
export function retryAfterFromMessage(message: string): number | undefined {
  const match = /try again in ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)/i.exec(message);
  return match?.[1] ? parseGoDuration(match[1]) : undefined;
}

/**
 * The wait `x-ratelimit-reset-requests` / `x-ratelimit-reset-tokens` announce for whichever limit
 * is used up (`x-ratelimit-remaining-*` is 0), in ms.
 */
export function retryAfterFromRateLimitHeaders(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  let wait: number | undefined;
  for (const limit of ["requests", "tokens"]) {
    if (headers.get(`x-ratelimit-remaining-${limit}`) !== "0") continue;
    const reset = headers.get(`x-ratelimit-reset-${limit}`);
    const ms = reset ? parseGoDuration(reset) : undefined;
    if (ms !== undefined) wait = Math.max(wait ?? 0, ms);
  }
  return wait;
}

/** A Go-style duration (`20ms`, `1.5s`, `6m0s`, `1h2m`) in ms; undefined when unreadable. */
export function parseGoDuration(text: string): number | undefined {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length || parts.map((p) => p[0]).join("") !== text.trim()) return undefined;
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] ?? ""] ?? 0), 0));
}

/** The system error code under a connection error (ECONNREFUSED, ENOTFOUND, …), if any. */
function connectionDetail(error: Error): string | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return error.cause instanceof Error ? error.cause.message : undefined;
}
