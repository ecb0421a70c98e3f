import { type ProviderError, providerFailureOf } from "./errors.js";

/** How failed provider calls are retried. */
export interface RetryPolicy {
  /** Further attempts after the first (default 4). */
  retries: number;
  /** First backoff ceiling in ms (default 500); doubles each attempt. */
  minDelayMs: number;
  /** Largest backoff in ms (default 30 s). */
  maxDelayMs: number;
  /**
   * Longest Retry-After engram will wait inside one call (default 60 s). A provider asking for more
   * gets a final error instead, and its circuit stays open for that long.
   */
  maxRetryAfterMs: number;
}

/** The defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY: RetryPolicy = {
  retries: 4,
  minDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/** Hooks for tests and telemetry. */
export interface RetryHooks {
  /** Wait `ms` (default: a timer that the signal cancels). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) (default Math.random). */
  random?: () => number;
  /** Called before each retry with the error and the chosen delay. */
  onRetry?: (error: ProviderError, attempt: number, delayMs: number) => void;
}

/**
 * Run `attempt` until it succeeds, retrying only retryable provider errors (rate limits, network,
 * timeouts, server errors, bad responses — of embedders and language models alike, recognised by
 * their code: {@link providerFailureOf}) with exponential backoff and full jitter, or after the
 * delay the provider asked for (Retry-After). Quota, auth and input errors — and anything that is
 * not a provider error — are thrown at once: a used-up quota is never retried in a loop.
 *
 * Written here rather than taken from `p-retry` because the delay must come from the failed
 * response (Retry-After) and the decision from engram's error kinds.
 */
export async function withRetry<T>(
  attempt: (signal?: AbortSignal) => Promise<T>,
  policy: RetryPolicy = DEFAULT_RETRY,
  options: RetryHooks & { signal?: AbortSignal | undefined } = {},
): Promise<T> {
  const wait = options.sleep ?? sleep;
  const random = options.random ?? Math.random;
  for (let n = 0; ; n++) {
    options.signal?.throwIfAborted();
    try {
      return await attempt(options.signal);
    } catch (error) {
      const failure = providerFailureOf(error);
      if (!failure?.retryable || n >= policy.retries) throw error;
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs) {
        throw error;
      }
      const delay = retryDelay(failure, n, policy, random);
      options.onRetry?.(error as ProviderError, n + 1, delay);
      await wait(delay, options.signal);
    }
  }
}

/**
 * The wait before retry `n + 1`: the provider's Retry-After plus up to 10 % jitter when it gave one
 * (so many clients do not return at the same instant), else full jitter over an exponential ceiling.
 */
export function retryDelay(
  error: { retryAfterMs?: number | undefined },
  n: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (error.retryAfterMs !== undefined) {
    return Math.round(error.retryAfterMs * (1 + 0.1 * random()));
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** n);
  return Math.round(ceiling * random());
}

/** Wait `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}
