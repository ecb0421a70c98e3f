import { EngramError } from "../errors.js";
import { estimateTokens } from "../text/tokens.js";
import type { GenerateRequest, TokenUsage } from "./language-model.js";

/**
 * Estimated input tokens of a request: the system prompt, every message and the schema (providers
 * count the schema as input), by engram's estimate (CJK ≈ 1 token per character, else ≈ 4
 * characters per token) plus a few tokens of framing per message.
 */
export function estimateInputTokens(request: GenerateRequest): number {
  let tokens = request.system ? estimateTokens(request.system) + 4 : 0;
  for (const message of request.messages) tokens += estimateTokens(message.content) + 4;
  if (request.schema) tokens += estimateTokens(JSON.stringify(request.schema));
  return tokens;
}

/**
 * The usage a driver reported, or engram's estimate for what it left out (a local server that
 * sends no `usage`): input from the request, output from the answer's text.
 */
export function usageOrEstimate(
  reported: Partial<TokenUsage> | undefined,
  request: GenerateRequest,
  text: string,
): TokenUsage {
  const ok = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;
  return {
    inputTokens: ok(reported?.inputTokens) ? reported.inputTokens : estimateInputTokens(request),
    outputTokens: ok(reported?.outputTokens) ? reported.outputTokens : estimateTokens(text),
  };
}

/** Tokens held for a call in flight, until its real usage is known. */
export interface BudgetHold {
  readonly tokens: number;
}

/**
 * The tokens one run (a consolidation pass, say) may spend on model calls, input and output
 * together. Before a call is sent its worst case (estimated input + its `maxTokens`) is held; a
 * call that would not fit is not sent and fails with `MODEL_BUDGET`; when the call returns, the
 * hold is replaced by the usage the provider reported (estimated when it reported none).
 */
export class ModelTokenBudget {
  /** The cap, or undefined for none (usage is still counted). */
  readonly limit: number | undefined;
  #spent = 0;
  #held = 0;

  constructor(limit?: number) {
    if (limit !== undefined && (!Number.isFinite(limit) || limit < 1)) {
      throw new EngramError("INVALID_ARGUMENT", `a token budget must be at least 1, got ${limit}`, {
        hint: "pass a positive number of tokens, e.g. 200000",
      });
    }
    this.limit = limit;
  }

  /** Tokens spent by calls that returned (or failed after the provider counted them). */
  get spent(): number {
    return this.#spent;
  }

  /** Tokens that may still be held; undefined without a cap. */
  get remaining(): number | undefined {
    return this.limit === undefined
      ? undefined
      : Math.max(0, this.limit - this.#spent - this.#held);
  }

  /**
   * Hold `tokens` for a call about to be sent.
   *
   * @throws EngramError `MODEL_BUDGET` when they do not fit; nothing is held then.
   */
  hold(tokens: number, what = "a model call"): BudgetHold {
    const remaining = this.remaining;
    if (remaining !== undefined && tokens > remaining) {
      throw new EngramError(
        "MODEL_BUDGET",
        `${what} needs up to ${tokens} tokens, but only ${remaining} of this run's ${this.limit} are left (${this.#spent} spent)`,
        {
          hint: "raise llm.maxTokensPerRun (or --max-tokens), or run again: work done so far is kept",
        },
      );
    }
    this.#held += tokens;
    return { tokens };
  }

  /** The call returned: release its hold and count what it really used (0 if nothing was sent). */
  settle(hold: BudgetHold, used: number): void {
    this.#held = Math.max(0, this.#held - hold.tokens);
    this.#spent += Math.max(0, used);
  }
}

/** True when `error` is a budget refusal (by code, so errors of any copy of core count). */
export function isBudgetError(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { code?: unknown }).code === "MODEL_BUDGET"
  );
}
