import {
  CircuitBreaker,
  type CircuitPolicy,
  type CircuitState,
} from "../embedding/circuit-breaker.js";
import { providerFailureOf } from "../embedding/errors.js";
import { type RetryHooks, type RetryPolicy, withRetry } from "../embedding/retry.js";
import { EngramError } from "../errors.js";
import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  TokenUsage,
} from "./language-model.js";
import { assertMatchesSchema, parseJsonAnswer } from "./structured-output.js";
import {
  type BudgetHold,
  estimateInputTokens,
  isBudgetError,
  type ModelTokenBudget,
  usageOrEstimate,
} from "./usage.js";

/** What one language model has cost and how it has behaved since it was opened. */
export interface LanguageModelStats {
  /** Calls made to the provider (attempts, retries included). */
  requests: number;
  /** Retries among them. */
  retries: number;
  /** Calls that failed for good (after their retries). */
  failures: number;
  /** Input tokens the provider counted (estimated when it did not say). */
  inputTokens: number;
  /** Output tokens the provider counted (estimated when it did not say). */
  outputTokens: number;
}

/** What a call is charged to: a run's budget, and who wants to hear about tokens spent. */
export interface CallContext {
  budget?: ModelTokenBudget | undefined;
  /** Called with each attempt's usage (failed attempts that the provider answered included). */
  onUsage?: ((usage: TokenUsage, model: ResilientLanguageModel) => void) | undefined;
}

/** Options of {@link ResilientLanguageModel} and the chain. */
export interface ResilienceOptions {
  retry: RetryPolicy;
  circuit: CircuitPolicy;
  hooks?: RetryHooks;
  now?: () => number;
}

/**
 * A language model wrapped in engram's retry policy and a circuit breaker, the same ones the
 * embedders use: only retryable failures (rate limits, network, timeouts, server errors, bad
 * answers) are retried, auth and quota failures pause the model at once. With a schema, every
 * answer is parsed and checked against it; one that does not match is a `bad_response` (retried).
 * Tokens are counted from the provider's usage (estimated when it reports none) and, inside a run,
 * held against its budget before each attempt is sent.
 */
export class ResilientLanguageModel implements LanguageModel {
  readonly inner: LanguageModel;
  readonly breaker: CircuitBreaker;
  readonly stats: LanguageModelStats = {
    requests: 0,
    retries: 0,
    failures: 0,
    inputTokens: 0,
    outputTokens: 0,
  };
  readonly #retry: RetryPolicy;
  readonly #hooks: RetryHooks;

  constructor(inner: LanguageModel, options: ResilienceOptions) {
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
  get endpoint() {
    return this.inner.endpoint;
  }
  get contextTokens() {
    return this.inner.contextTokens;
  }

  /** `provider/model[@endpoint]`: the key its health is kept under. */
  describe(): string {
    return describeLanguageModel(this);
  }

  /** The circuit breaker's state. */
  circuit(): CircuitState {
    return this.breaker.state();
  }

  generate<T = unknown>(request: GenerateRequest): Promise<GenerateResult<T>> {
    return this.generateWith<T>(request, {});
  }

  /** {@link generate}, charged to `context` (a run's budget). */
  async generateWith<T = unknown>(
    request: GenerateRequest,
    context: CallContext,
  ): Promise<GenerateResult<T>> {
    if (!this.breaker.allows()) throw this.#unavailable();
    const { signal } = request;
    let began = false;
    let lastFailure: Error | undefined;
    // An answer cut off at `maxTokens` would be cut off again by the same request (a local model
    // at temperature 0 repeats itself exactly): the retry asks for twice the tokens.
    let attempt = request;
    try {
      const result = await withRetry(
        async (attemptSignal) => {
          if (isCutOff(lastFailure) && attempt.maxTokens !== undefined) {
            // Within the model's context window when it is known.
            const room = this.contextTokens
              ? this.contextTokens - estimateInputTokens(attempt)
              : Number.POSITIVE_INFINITY;
            const more = Math.min(attempt.maxTokens * 2, room);
            if (more > attempt.maxTokens) attempt = { ...attempt, maxTokens: more };
          }
          const { sized, hold } = this.#size(attempt, context.budget);
          if (!began) {
            this.breaker.begin();
            began = true;
          }
          try {
            return await this.#attempt<T>(sized, attemptSignal, hold, context);
          } catch (error) {
            lastFailure = error as Error;
            throw error;
          }
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
      return result;
    } catch (error) {
      if (!began || signal?.aborted) throw error;
      this.stats.failures++;
      // A budget refusal before a retry: the provider's last failure is what the breaker records.
      const failed = isBudgetError(error) ? lastFailure : (error as Error);
      if (failed) {
        const failure = providerFailureOf(failed);
        this.breaker.failure(failed, {
          final: !failure?.retryable,
          retryAfterMs: failure?.retryAfterMs,
        });
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  /**
   * The request as sent within the budget: its worst case (estimated input + `maxTokens`) held;
   * without `maxTokens`, the answer is capped at what the budget has left.
   */
  #size(
    request: GenerateRequest,
    budget: ModelTokenBudget | undefined,
  ): { sized: GenerateRequest; hold: BudgetHold | undefined } {
    if (!budget) return { sized: request, hold: undefined };
    const input = estimateInputTokens(request);
    const remaining = budget.remaining;
    let sized = request;
    if (request.maxTokens === undefined && remaining !== undefined && remaining > input) {
      sized = { ...request, maxTokens: remaining - input };
    }
    const what = `a call to ${this.describe()}`;
    return { sized, hold: budget.hold(input + (sized.maxTokens ?? 0), what) };
  }

  async #attempt<T>(
    request: GenerateRequest,
    signal: AbortSignal | undefined,
    hold: BudgetHold | undefined,
    context: CallContext,
  ): Promise<GenerateResult<T>> {
    this.stats.requests++;
    let used: TokenUsage | undefined;
    try {
      let result: GenerateResult<T>;
      try {
        result = await this.inner.generate<T>({ ...request, ...(signal ? { signal } : {}) });
      } catch (error) {
        const reported = (error as { usage?: Partial<TokenUsage> }).usage;
        if (reported && typeof reported === "object") {
          used = usageOrEstimate(reported, request, "");
        }
        throw error;
      }
      const text = typeof result.text === "string" ? result.text : "";
      used = usageOrEstimate(result.usage, request, text);
      let value = result.value;
      if (request.schema) {
        value ??= parseJsonAnswer(text, this.id, { finishReason: result.finishReason }) as T;
        assertMatchesSchema(value, request.schema, this.id, request.schemaName);
      }
      return {
        ...result,
        text,
        usage: used,
        ...(request.schema ? { value } : {}),
        provider: result.provider ?? this.id,
      };
    } finally {
      if (used) {
        this.stats.inputTokens += used.inputTokens;
        this.stats.outputTokens += used.outputTokens;
        context.onUsage?.(used, this);
      }
      if (hold) context.budget?.settle(hold, used ? used.inputTokens + used.outputTokens : 0);
    }
  }

  #unavailable(): EngramError {
    const state = this.breaker.state();
    const until = state.openUntil ? new Date(state.openUntil).toISOString() : "later";
    return new EngramError(
      "MODEL_UNAVAILABLE",
      `${this.describe()} is paused until ${until} after ${state.failures} failed call(s): ${state.lastError ?? "unknown error"}`,
      { hint: "fix the cause (key, quota, endpoint) or wait; engram will try it again then" },
    );
  }
}

/** `provider/model[@endpoint]`: how status and health records name a language model. */
export function describeLanguageModel(
  model: Pick<LanguageModel, "id" | "model" | "endpoint">,
): string {
  return `${model.id}/${model.model}${model.endpoint ? `@${model.endpoint}` : ""}`;
}

/** True for a {@link ModelError} whose answer stopped at the token limit before it was whole. */
function isCutOff(error: Error | undefined): boolean {
  return (error as { cutOff?: unknown } | undefined)?.cutOff === true;
}
