import {
  batches,
  EmbeddingError,
  EngramError,
  embeddingErrorFromHttp,
  errorSummary,
  isEmbeddingError,
  isEngramError,
  type RetryPolicy,
  storeFailedError,
  transportFailure,
  withRetry,
} from "@engram/core/driver";
import type { QdrantClient, Schemas } from "@qdrant/js-client-rest";

/** Points per scroll page (and the most ids the driver puts in one request). */
export const PAGE_SIZE = 1000;

/**
 * Requests to the server: each retried by core's `withRetry` while it may still succeed, a final
 * failure turned into `STORE_FAILED` with a fix, and scrolls read page by page.
 */

/** Runs one client call with retries, failures as EngramErrors (the driver's `#call`). */
export type Caller = <T>(action: string, fn: (client: QdrantClient) => Promise<T>) => Promise<T>;

/** Provider name on the retryable errors handed to core's `withRetry`. */
const PROVIDER = "qdrant";

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
 * `QdrantClientTimeoutError`, or a failure before any answer (core's `transportFailure`).
 */
export function classify(error: unknown): Failure {
  const message = errorSummary(error);
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
    const body = (error as { data?: { status?: { error?: unknown } } }).data?.status?.error;
    return {
      kind: "http",
      status,
      message: typeof body === "string" && body.trim() ? body.trim() : message,
      headers: raw instanceof Headers ? raw : undefined,
    };
  }
  const unexpected = /^Unexpected Response: (\d{3})/.exec(message);
  if (unexpected) return { kind: "http", status: Number(unexpected[1]), message };
  const transport = transportFailure(error);
  if (!transport) return { kind: "other", message };
  const { kind, code } = transport;
  return { kind, message: code && !message.includes(code) ? `${message}: ${code}` : message };
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
    const { status, message, headers } = failure;
    retryable = embeddingErrorFromHttp({
      provider: PROVIDER,
      status,
      message,
      headers,
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
  const attempt = () =>
    fn().catch((error: unknown) => Promise.reject(retryableError(error) ?? error));
  try {
    return await withRetry(attempt, policy, hooks);
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
    storeFailedError({
      action,
      problem,
      where: `Qdrant at ${where.url}, collection ${where.collection}`,
      hint,
      cause,
    });
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

/** A point id, or a scroll cursor (Qdrant's `next_page_offset`). */
export type PointId = Schemas["ExtendedPointId"];

/** One page of a scroll: its points and the cursor of the next page (null/undefined: last page). */
export interface Page<T> {
  points: T[];
  next_page_offset?: PointId | null | Record<string, unknown>;
}

/**
 * Every point of a scroll, page after page: `fetch(offset)` gets the page starting at `offset`
 * (undefined for the first). Stops at the page without a next cursor. A cursor that comes back a
 * second time would loop forever, so it fails instead.
 * @throws EngramError `STORE_FAILED` when the server repeats a cursor.
 */
export async function scrollAll<T>(
  fetch: (offset: PointId | undefined) => Promise<Page<T>>,
): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let offset: PointId | undefined;
  for (;;) {
    const page = await fetch(offset);
    all.push(...page.points);
    const next = page.next_page_offset;
    if (next === null || next === undefined) return all;
    const key = `${typeof next}:${typeof next === "object" ? JSON.stringify(next) : next}`;
    if ((typeof next !== "string" && typeof next !== "number") || seen.has(key)) {
      throw new EngramError(
        "STORE_FAILED",
        `Qdrant returned the scroll cursor ${key.slice(key.indexOf(":") + 1)} twice (or one that is not a point id); stopped reading.`,
        {
          hint: "Check the Qdrant server's health and version; engram needs Qdrant 1.10 or later.",
        },
      );
    }
    seen.add(key);
    offset = next;
  }
}

/** Every point of `collection` matching `filter`, page by page, with the `payload` asked for. */
export function scrollPoints(
  call: Caller,
  action: string,
  collection: string,
  filter: Schemas["Filter"],
  payload: true | string[],
): Promise<Schemas["Record"][]> {
  return scrollAll((offset) =>
    call(action, (client) =>
      client.scroll(collection, {
        filter,
        limit: PAGE_SIZE,
        with_payload: payload,
        with_vector: false,
        ...(offset !== undefined ? { offset } : {}),
      }),
    ),
  );
}

/** Upsert `points` in batches of `batchSize`, each applied before the next is sent. */
export async function upsertPoints(
  call: Caller,
  action: string,
  collection: string,
  points: readonly Schemas["PointStruct"][],
  batchSize: number,
): Promise<void> {
  for (const slice of batches(points, batchSize)) {
    await call(action, (client) => client.upsert(collection, { wait: true, points: slice }));
  }
}
