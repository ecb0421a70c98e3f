import { EngramError, isEngramError } from "../errors.js";
import { CircuitBreaker, type CircuitPolicy, type CircuitState } from "./circuit-breaker.js";
import type { Embedder } from "./embedder.js";
import { providerFailureOf } from "./errors.js";
import { describeEmbedding, embeddingIdentity } from "./identity.js";
import { type RetryHooks, type RetryPolicy, withRetry } from "./retry.js";
import { checkVectors } from "./vectors.js";

/** What one provider has cost and how it has behaved since it was opened. */
export interface ProviderStats {
  /** Calls made to the provider (attempts, retries included). */
  requests: number;
  /** Retries among them. */
  retries: number;
  /** Calls that failed for good (after their retries). */
  failures: number;
  /** Texts embedded successfully. */
  texts: number;
}

/**
 * An embedder wrapped in engram's retry policy and a circuit breaker. Core wraps every provider in
 * one; drivers only make single attempts and classify their errors.
 */
export class ResilientEmbedder implements Embedder {
  readonly inner: Embedder;
  readonly breaker: CircuitBreaker;
  readonly stats: ProviderStats = { requests: 0, retries: 0, failures: 0, texts: 0 };
  readonly #retry: RetryPolicy;
  readonly #hooks: RetryHooks;
  /** Settles when the half-open trial call in flight ends. */
  #trial: Promise<void> | undefined;

  constructor(
    inner: Embedder,
    options: {
      retry: RetryPolicy;
      circuit: CircuitPolicy;
      hooks?: RetryHooks;
      now?: () => number;
    },
  ) {
    this.inner = inner;
    this.#retry = options.retry;
    this.#hooks = options.hooks ?? {};
    this.breaker = new CircuitBreaker(options.circuit, options.now);
  }

  get id() {
    return this.inner.id;
  }
  get model() {
    return this.inner.model;
  }
  get dims() {
    return this.inner.dims;
  }
  get endpoint() {
    return this.inner.endpoint;
  }
  get maxBatchSize() {
    return this.inner.maxBatchSize;
  }
  get maxTokensPerRequest() {
    return this.inner.maxTokensPerRequest;
  }
  get maxConcurrency() {
    return this.inner.maxConcurrency;
  }

  /** `provider/model/dims[@endpoint]`. */
  describe(): string {
    return describeEmbedding(embeddingIdentity(this));
  }

  /** The circuit breaker's state. */
  circuit(): CircuitState {
    return this.breaker.state();
  }

  /**
   * Embed a search query. A search is waiting on it, so it is retried at most once, after a short
   * delay (a provider asking for a longer wait fails the call and the search answers from BM25).
   */
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    return this.#call(
      async (s) => {
        const vector = await this.inner.embedQuery(text, s);
        checkVectors([vector], 1, this.inner);
        return vector;
      },
      1,
      signal,
      queryRetry(this.#retry),
    );
  }

  embedBatch(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.#call(
      async (s) => {
        const vectors = await this.inner.embedBatch(texts, s);
        checkVectors(vectors, texts.length, this.inner);
        return vectors;
      },
      texts.length,
      signal,
    );
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  async #call<T>(
    attempt: (signal?: AbortSignal) => Promise<T>,
    texts: number,
    signal: AbortSignal | undefined,
    retry: RetryPolicy = this.#retry,
  ): Promise<T> {
    // A half-open circuit lets one trial call through; calls made meanwhile (a sync's other lanes)
    // wait for its outcome instead of failing with "paused until" a time already past.
    while (!this.breaker.allows()) {
      if (!this.#trial) throw this.#unavailable();
      await this.#trial;
    }
    let endTrial: (() => void) | undefined;
    if (this.breaker.begin()) {
      this.#trial = new Promise<void>((resolve) => {
        endTrial = resolve;
      });
    }
    try {
      const out = await withRetry(
        (s) => {
          this.stats.requests++;
          return attempt(s);
        },
        retry,
        {
          ...this.#hooks,
          signal,
          onRetry: (error, n, delay) => {
            this.stats.retries++;
            this.#hooks.onRetry?.(error, n, delay);
          },
        },
      );
      this.breaker.success();
      this.stats.texts += texts;
      return out;
    } catch (error) {
      if (signal?.aborted) throw error;
      this.stats.failures++;
      const failure = providerFailureOf(error);
      this.breaker.failure(error as Error, {
        final: !failure?.retryable,
        retryAfterMs: failure?.retryAfterMs,
      });
      throw error;
    } finally {
      if (endTrial) {
        this.#trial = undefined;
        endTrial();
      }
    }
  }

  #unavailable(): EngramError {
    const state = this.breaker.state();
    const until = state.openUntil ? new Date(state.openUntil).toISOString() : "later";
    return new EngramError(
      "EMBEDDING_UNAVAILABLE",
      `${this.describe()} is paused until ${until} after ${state.failures} failed call(s): ${state.lastError ?? "unknown error"}`,
      { hint: "fix the cause (key, quota, endpoint) or wait; keyword search keeps working" },
    );
  }
}

/** The retry policy of a query embedding: at most one retry, waiting at most ~1-2 s. */
function queryRetry(policy: RetryPolicy): RetryPolicy {
  return {
    retries: Math.min(policy.retries, 1),
    minDelayMs: Math.min(policy.minDelayMs, 250),
    maxDelayMs: Math.min(policy.maxDelayMs, 1_000),
    maxRetryAfterMs: Math.min(policy.maxRetryAfterMs, 2_000),
  };
}

/** True for errors that mean "this provider cannot embed right now" (not a bug in engram). */
export function isProviderFailure(error: unknown): boolean {
  return (
    providerFailureOf(error)?.service === "embedding" ||
    isEngramError(error, "EMBEDDING_UNAVAILABLE") ||
    isEngramError(error, "EMBEDDING_FAILED")
  );
}
