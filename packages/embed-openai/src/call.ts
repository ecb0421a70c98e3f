import type { ProviderError, ProviderService } from "@engram/core/driver";
import { openaiError } from "./errors.js";

/** How {@link callOnce} bounds and classifies one request. */
export interface CallOptions {
  /** The whole request, body included, must finish within this many ms. */
  timeoutMs: number;
  /** The caller's signal: when it aborts, the request is aborted and its reason is thrown. */
  signal?: AbortSignal | undefined;
  /** Turns whatever the request threw into an `EmbeddingError` or a `ModelError`. */
  classify: (error: unknown) => ProviderError;
  /** Which error a timeout is: `EMBEDDING_TIMEOUT` (default) or `MODEL_TIMEOUT`. */
  service?: ProviderService;
  /** What the request was, for the timeout message (e.g. `POST /embeddings`). */
  what: string;
}

/**
 * Run one request exactly once. `run` gets a signal that aborts when the caller's signal aborts or
 * when `timeoutMs` has passed. The SDK's own timeout only covers the wait for response headers;
 * this one also covers reading the body, so a server that stalls mid-body fails with `timeout`.
 *
 * An abort by the caller rethrows the signal's reason (as core's retry loop does); every other
 * failure is classified.
 */
export async function callOnce<T>(
  run: (signal: AbortSignal) => Promise<T>,
  options: CallOptions,
): Promise<T> {
  const { signal } = options;
  signal?.throwIfAborted();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`${options.what} timed out`));
  }, options.timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await run(controller.signal);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) {
      throw openaiError(
        options.service ?? "embedding",
        "timeout",
        `${options.what} took longer than ${options.timeoutMs} ms`,
      );
    }
    throw options.classify(error);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
