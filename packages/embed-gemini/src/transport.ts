/** What one request's answer said, recorded by {@link recordingFetch}. */
export interface AttemptRecord {
  /** Status and headers, once an answer arrived (the SDK's `ApiError` keeps neither header). */
  answer?: { status: number; headers: Headers };
}

/** The `fetch` signature the SDK's `httpOptions.fetch` takes. */
export type FetchFunction = (
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
) => Promise<Response>;

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for one SDK request: it records the answer's status and headers (the SDK drops them
 * from its `ApiError`, and `Retry-After` lives there), reads the whole body inside the attempt so
 * a stall is caught by the same timeout, and turns a failed request into `onFailure(error)`.
 */
export function recordingFetch(
  record: AttemptRecord,
  onFailure: (error: unknown, attemptSignal: AbortSignal | undefined) => unknown,
  fetchImpl: FetchFunction = fetch,
): FetchFunction {
  return async (input, init) => {
    try {
      const response = await fetchImpl(input, init);
      record.answer = { status: response.status, headers: response.headers };
      const body = NULL_BODY_STATUSES.has(response.status) ? null : await response.arrayBuffer();
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    } catch (error) {
      throw onFailure(error, init?.signal ?? undefined);
    }
  };
}
