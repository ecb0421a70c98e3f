/** When a failing provider stops being called. */
export interface CircuitPolicy {
  /** Consecutive failed calls (after their retries) that open the circuit (default 3). */
  failureThreshold: number;
  /** How long an open circuit refuses calls before one trial call is let through (default 60 s). */
  cooldownMs: number;
  /** Cool-down after a final error: auth or quota (default 10 min). */
  finalCooldownMs: number;
}

/** The defaults of {@link CircuitPolicy}. */
export const DEFAULT_CIRCUIT: CircuitPolicy = {
  failureThreshold: 3,
  cooldownMs: 60_000,
  finalCooldownMs: 10 * 60_000,
};

/** A breaker's state, as `engram status` shows it. */
export interface CircuitState {
  state: "closed" | "open" | "half-open";
  /** Consecutive failures so far. */
  failures: number;
  /** When an open circuit lets a trial call through (ms since epoch). */
  openUntil: number | null;
  /** The error that opened it, as one line. */
  lastError: string | null;
  lastErrorCode: string | null;
}

/**
 * A circuit breaker for one provider: after `failureThreshold` consecutive failures, or at once
 * after an auth or quota error, calls are refused for a cool-down; then one trial call is let
 * through (half-open), and its outcome closes or re-opens the circuit. This is what keeps a broken
 * or unpaid provider from being called in a loop.
 */
export class CircuitBreaker {
  readonly #policy: CircuitPolicy;
  readonly #now: () => number;
  #failures = 0;
  #openUntil: number | null = null;
  #trial = false;
  #lastError: { message: string; code: string | null } | null = null;

  constructor(policy: CircuitPolicy = DEFAULT_CIRCUIT, now: () => number = Date.now) {
    this.#policy = policy;
    this.#now = now;
  }

  /** True when a call may go out now (closed, or half-open with no trial in flight). */
  allows(): boolean {
    if (this.#openUntil === null) return true;
    if (this.#now() < this.#openUntil || this.#trial) return false;
    return true;
  }

  /**
   * Mark the start of a call; in half-open state it becomes the one trial call (returns true then).
   */
  begin(): boolean {
    if (this.#openUntil !== null && this.#now() >= this.#openUntil) {
      this.#trial = true;
      return true;
    }
    return false;
  }

  /** True while the half-open trial call is in flight (other calls wait for its outcome). */
  get trialInFlight(): boolean {
    return this.#trial;
  }

  /** The call succeeded: close the circuit. */
  success(): void {
    this.#failures = 0;
    this.#openUntil = null;
    this.#trial = false;
  }

  /**
   * The call failed for good (after its retries). `final` errors, and a failed trial call, open the
   * circuit at once; others after `failureThreshold` in a row.
   */
  failure(error: Error, options: { final: boolean; retryAfterMs?: number | undefined }): void {
    const wasTrial = this.#openUntil !== null;
    this.#failures++;
    this.#trial = false;
    this.#lastError = {
      message: error.message,
      code: (error as { code?: string }).code ?? null,
    };
    if (options.final || wasTrial || this.#failures >= this.#policy.failureThreshold) {
      const cooldown = Math.max(
        options.final ? this.#policy.finalCooldownMs : this.#policy.cooldownMs,
        options.retryAfterMs ?? 0,
      );
      this.#openUntil = this.#now() + cooldown;
    }
  }

  /** A snapshot for status output. */
  state(): CircuitState {
    const open = this.#openUntil !== null;
    return {
      state: !open ? "closed" : this.#now() < (this.#openUntil ?? 0) ? "open" : "half-open",
      failures: this.#failures,
      openUntil: this.#openUntil,
      lastError: this.#lastError?.message ?? null,
      lastErrorCode: this.#lastError?.code ?? null,
    };
  }

  /** Restore a persisted state (another process saw the provider fail). */
  restore(
    state: Pick<CircuitState, "failures" | "openUntil"> &
      Partial<Pick<CircuitState, "lastError" | "lastErrorCode">>,
  ): void {
    this.#failures = state.failures;
    this.#openUntil = state.openUntil;
    if (state.lastError) {
      this.#lastError = { message: state.lastError, code: state.lastErrorCode ?? null };
    }
  }
}
