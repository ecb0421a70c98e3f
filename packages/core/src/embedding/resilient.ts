import { EngramError } from "../errors.js";
import { CircuitBreaker, type CircuitPolicy, type CircuitState } from "./circuit-breaker.js";
import type { Embedder } from "./embedder.js";
import { providerFailureOf } from "./errors.js";
import { describeEmbedding, embeddingIdentity } from "./identity.js";
import { type RetryHooks, type RetryPolicy, withRetry } from "./retry.js";

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

  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    return this.#call((s) => this.inner.embedQuery(text, s), 1, signal);
  }

  embedBatch(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.#call((s) => this.inner.embedBatch(texts, s), texts.length, signal);
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  async #call<T>(
    attempt: (signal?: AbortSignal) => Promise<T>,
    texts: number,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    if (!this.breaker.allows()) throw this.#unavailable();
    this.breaker.begin();
    try {
      const out = await withRetry(
        (s) => {
          this.stats.requests++;
          return attempt(s);
        },
        this.#retry,
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

/** True for errors that mean "this provider cannot embed right now" (not a bug in engram). */
export function isProviderFailure(error: unknown): boolean {
  return (
    providerFailureOf(error)?.service === "embedding" ||
    (error instanceof EngramError &&
      (error.code === "EMBEDDING_UNAVAILABLE" || error.code === "EMBEDDING_FAILED"))
  );
}
