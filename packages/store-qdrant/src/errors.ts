import {
  EmbeddingError,
  EngramError,
  embeddingErrorFromHttp,
  isEmbeddingError,
  isEngramError,
  type RetryPolicy,
  withRetry,
} from "@engram/core/driver";

/** Provider name on the retryable errors handed to core's `withRetry`. */
const PROVIDER = "qdrant";

/** Error codes of a connection that failed before any HTTP response. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** What a failed Qdrant call was: an HTTP status (with its message), a network failure, or other. */
export type Failure =
  | { kind: "http"; status: number; message: string; headers?: Headers | undefined }
  | { kind: "network"; message: string }
  | { kind: "timeout"; message: string }
  | { kind: "other"; message: string };

/**
 * Classify an error thrown by `@qdrant/js-client-rest`: its `ApiError` (a `status`, `headers` and
 * a JSON body whose `status.error` says what went wrong), `QdrantClientResourceExhaustedError`
 * (429 with Retry-After), `QdrantClientUnexpectedResponseError` (status only in its message),
 * `QdrantClientTimeoutError`, or a fetch failure (`TypeError: fetch failed` with a socket error code
 * in its cause).
 */
export function classify(error: unknown): Failure {
  const message = messageOf(error);
  if (error instanceof Error && error.name === "QdrantClientTimeoutError") {
    return { kind: "timeout", message };
  }
  if (error instanceof Error && error.name === "QdrantClientResourceExhaustedError") {
    const seconds = (error as { retry_after?: unknown }).retry_after;
    const headers = new Headers();
    if (typeof seconds === "number") headers.set("retry-after", String(seconds));
    return { kind: "http", status: 429, message, headers };
  }
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 100) {
    const raw = (error as { headers?: unknown }).headers;
    return {
      kind: "http",
      status,
      message: bodyMessage((error as { data?: unknown }).data) ?? message,
      headers: raw instanceof Headers ? raw : undefined,
    };
  }
  const unexpected = /^Unexpected Response: (\d{3})/.exec(message);
  if (unexpected) return { kind: "http", status: Number(unexpected[1]), message };
  if (isNetworkError(error)) return { kind: "network", message };
  return { kind: "other", message };
}

/**
 * The failure as core's retryable {@link EmbeddingError} when trying again may help (429, 408,
 * 5xx, timeouts, network), so core's `withRetry` — backoff with jitter, Retry-After honoured —
 * retries store calls exactly as it retries provider calls. Undefined for final failures.
 */
export function retryableError(error: unknown): EmbeddingError | undefined {
  const failure = classify(error);
  let retryable: EmbeddingError | undefined;
  if (failure.kind === "http") {
    retryable = embeddingErrorFromHttp({
      provider: PROVIDER,
      status: failure.status,
      message: failure.message,
      headers: failure.headers,
      cause: error,
    });
  } else if (failure.kind === "network" || failure.kind === "timeout") {
    retryable = new EmbeddingError(failure.kind, PROVIDER, failure.message, { cause: error });
  }
  return retryable?.retryable ? retryable : undefined;
}

/**
 * Run one Qdrant call, retried by core's `withRetry` on retryable failures; a final failure
 * becomes an {@link EngramError} `STORE_FAILED` naming the action, the server and a fix.
 */
export async function call<T>(
  where: { url: string; collection: string },
  action: string,
  policy: RetryPolicy,
  fn: () => Promise<T>,
  hooks: Parameters<typeof withRetry>[2] = {},
): Promise<T> {
  try {
    return await withRetry(
      async () => {
        try {
          return await fn();
        } catch (error) {
          throw retryableError(error) ?? error;
        }
      },
      policy,
      hooks,
    );
  } catch (error) {
    throw storeError(error, where, action);
  }
}

/**
 * A failed call as `STORE_FAILED` with a hint for its cause (unreachable server, API key, missing
 * collection, bad request). EngramErrors other than the retry wrappers pass through unchanged.
 */
export function storeError(
  error: unknown,
  where: { url: string; collection: string },
  action: string,
): EngramError {
  const cause = isEmbeddingError(error) ? (error.cause ?? error) : error;
  if (isEngramError(cause)) return cause;
  const failure = classify(cause);
  const fail = (problem: string, hint: string) =>
    new EngramError(
      "STORE_FAILED",
      `Could not ${action}: ${problem} (Qdrant at ${where.url}, collection ${where.collection}).`,
      { hint, cause },
    );
  switch (failure.kind) {
    case "network":
      return fail(
        `the server did not answer (${failure.message})`,
        `Start Qdrant (docker run -p 6333:6333 qdrant/qdrant) or set QDRANT_URL / store.options.url to your server.`,
      );
    case "timeout":
      return fail(
        "the request timed out",
        "Check the server's load, or raise store.options.timeoutMs (and lower batchSize).",
      );
    case "http":
      if (failure.status === 401 || failure.status === 403) {
        return fail(
          `access was denied (HTTP ${failure.status})`,
          "Set the server's API key in QDRANT_API_KEY or store.options.apiKey.",
        );
      }
      if (failure.status === 404) {
        return fail(
          `not found (HTTP 404: ${failure.message})`,
          "The collection was deleted behind engram's back: run `engram sync` to rebuild it from your Markdown files.",
        );
      }
      return fail(
        `HTTP ${failure.status}: ${failure.message}`,
        failure.status >= 500 || failure.status === 429
          ? "The server kept failing after retries; check its logs and health, then run `engram sync` again."
          : "Check that the server runs Qdrant 1.10 or later and that the collection was created by engram.",
      );
    default:
      return fail(failure.message, "Check the Qdrant server and its logs, then try again.");
  }
}

function isNetworkError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    if (e instanceof TypeError && /fetch failed|network/i.test(e.message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function bodyMessage(data: unknown): string | undefined {
  const error = (data as { status?: { error?: unknown } } | null)?.status?.error;
  return typeof error === "string" && error.trim() ? error.trim() : undefined;
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split("\n", 1)[0] ?? message;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
