import { providerFailureOf } from "../embedding/errors.js";
import { EngramError } from "../errors.js";
import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  TokenUsage,
} from "./language-model.js";
import { type CallContext, type ResilienceOptions, ResilientLanguageModel } from "./resilient.js";
import { isBudgetError, ModelTokenBudget } from "./usage.js";

/** Options of {@link LanguageModelChain}. */
export interface LanguageModelChainOptions extends ResilienceOptions {
  /** The default cap of {@link LanguageModelChain.run} (config `llm.maxTokensPerRun`). */
  maxTokensPerRun?: number | undefined;
  /** Called with the tokens of every attempt the provider answered (to keep totals). */
  onUsage?: ((usage: TokenUsage, model: ResilientLanguageModel) => void) | undefined;
  /** Called after every call, success or failure (to persist health); its errors are ignored. */
  onSettled?: (() => Promise<void> | void) | undefined;
}

/**
 * The configured language models in order: the primary, then the `llm.fallback` ones, each wrapped
 * in retries and a circuit breaker. A call goes to the first model whose circuit lets calls
 * through; when it fails for good (after its retries) the next one is asked. A budget refusal or
 * the caller's abort ends the call at once.
 *
 * The chain is itself a {@link LanguageModel} (its identity is the primary's; each result's
 * `provider` and `model` say who answered). For a capped run, use {@link run}.
 */
export class LanguageModelChain implements LanguageModel {
  readonly members: readonly ResilientLanguageModel[];
  readonly #options: LanguageModelChainOptions;

  constructor(models: readonly LanguageModel[], options: LanguageModelChainOptions) {
    if (!models.length) {
      throw new EngramError("MODEL_NONE", "a language-model chain needs at least one model", {
        hint: "pass a model, or no chain at all",
      });
    }
    this.#options = options;
    this.members = models.map((m) =>
      m instanceof ResilientLanguageModel ? m : new ResilientLanguageModel(m, options),
    );
  }

  /** The preferred model. */
  get primary(): ResilientLanguageModel {
    return this.members[0] as ResilientLanguageModel;
  }
  get id() {
    return this.primary.id;
  }
  get model() {
    return this.primary.model;
  }
  get endpoint() {
    return this.primary.endpoint;
  }
  get contextTokens() {
    return this.primary.contextTokens;
  }
  /** The default cap of a {@link run} (config `llm.maxTokensPerRun`), if any. */
  get maxTokensPerRun(): number | undefined {
    return this.#options.maxTokensPerRun;
  }

  /** Members whose circuit lets calls through, in order. */
  available(): ResilientLanguageModel[] {
    return this.members.filter((m) => m.breaker.allows());
  }

  generate<T = unknown>(request: GenerateRequest): Promise<GenerateResult<T>> {
    return this.generateWith<T>(request, {});
  }

  /** {@link generate}, charged to `context` (a run's budget). */
  async generateWith<T = unknown>(
    request: GenerateRequest,
    context: CallContext,
  ): Promise<GenerateResult<T>> {
    const onUsage = chainUsage(this.#options.onUsage, context.onUsage);
    try {
      const candidates = this.available();
      if (!candidates.length) throw this.#allPaused();
      let last: unknown;
      for (const member of candidates) {
        try {
          return await member.generateWith<T>(request, { ...context, onUsage });
        } catch (error) {
          if (request.signal?.aborted || isBudgetError(error) || !handsOver(error)) throw error;
          last = error;
        }
      }
      throw last;
    } finally {
      await Promise.resolve()
        .then(() => this.#options.onSettled?.())
        .catch(() => {});
    }
  }

  /**
   * A run: a view of this chain whose calls share one token budget (`maxTokens`, default the
   * config's `llm.maxTokensPerRun`; none: counted, not capped). A call that would exceed it is not
   * sent and fails with `MODEL_BUDGET`.
   */
  run(options: { maxTokens?: number | undefined } = {}): LanguageModelRun {
    return new LanguageModelRun(
      this,
      new ModelTokenBudget(options.maxTokens ?? this.maxTokensPerRun),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.close()));
  }

  #allPaused(): EngramError {
    const paused = this.members.map((m) => {
      const s = m.circuit();
      const until = s.openUntil ? new Date(s.openUntil).toISOString() : "later";
      return `${m.describe()} until ${until}${s.lastError ? ` (${s.lastError})` : ""}`;
    });
    return new EngramError(
      "MODEL_UNAVAILABLE",
      `every language model is paused: ${paused.join("; ")}`,
      {
        hint: "fix the cause (key, quota, endpoint) or wait; add llm.fallback for another model",
      },
    );
  }
}

/**
 * A {@link LanguageModelChain} seen through one token budget: every call counts against it and
 * `usage` adds up what the run spent.
 */
export class LanguageModelRun implements LanguageModel {
  readonly chain: LanguageModelChain;
  readonly budget: ModelTokenBudget;
  /** What this run's calls used (failed attempts the provider answered included). */
  readonly usage = { inputTokens: 0, outputTokens: 0, requests: 0 };

  constructor(chain: LanguageModelChain, budget: ModelTokenBudget) {
    this.chain = chain;
    this.budget = budget;
  }

  get id() {
    return this.chain.id;
  }
  get model() {
    return this.chain.model;
  }
  get endpoint() {
    return this.chain.endpoint;
  }
  get contextTokens() {
    return this.chain.contextTokens;
  }

  generate<T = unknown>(request: GenerateRequest): Promise<GenerateResult<T>> {
    return this.chain.generateWith<T>(request, {
      budget: this.budget,
      onUsage: (used) => {
        this.usage.inputTokens += used.inputTokens;
        this.usage.outputTokens += used.outputTokens;
        this.usage.requests++;
      },
    });
  }
}

/** Failures after which the next model is asked: provider errors and a paused model. */
function handsOver(error: unknown): boolean {
  return (
    providerFailureOf(error) !== undefined ||
    (error as { code?: unknown } | null)?.code === "MODEL_UNAVAILABLE"
  );
}

function chainUsage(a: CallContext["onUsage"], b: CallContext["onUsage"]): CallContext["onUsage"] {
  if (!a || !b) return a ?? b;
  return (usage, model) => {
    a(usage, model);
    b(usage, model);
  };
}
