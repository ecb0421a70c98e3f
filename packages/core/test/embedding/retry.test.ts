import { describe, expect, it } from "vitest";
import { EmbeddingError } from "../../src/embedding/errors.js";
import { DEFAULT_RETRY, retryDelay, withRetry } from "../../src/embedding/retry.js";

function failing(errors: Error[]) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    attempt: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return "ok";
    },
  };
}

const sleeps: number[] = [];
const hooks = {
  sleep: async (ms: number) => {
    sleeps.push(ms);
  },
  random: () => 0.5,
};
const err = (kind: ConstructorParameters<typeof EmbeddingError>[0], retryAfterMs?: number) =>
  new EmbeddingError(kind, "p", kind, retryAfterMs === undefined ? {} : { retryAfterMs });

describe("withRetry", () => {
  it("retries retryable failures with exponential backoff and full jitter", async () => {
    sleeps.length = 0;
    const op = failing([err("server"), err("network"), err("timeout")]);
    await expect(withRetry(op.attempt, DEFAULT_RETRY, hooks)).resolves.toBe("ok");
    expect(op.calls).toBe(4);
    expect(sleeps).toEqual([250, 500, 1000]);
  });

  it("never retries a used-up quota, bad auth or bad input", async () => {
    for (const kind of ["quota", "auth", "bad_input", "too_long"] as const) {
      const op = failing([err(kind)]);
      await expect(withRetry(op.attempt, DEFAULT_RETRY, hooks)).rejects.toMatchObject({ kind });
      expect(op.calls).toBe(1);
    }
  });

  it("does not retry errors that are not provider errors", async () => {
    const op = failing([new TypeError("bug")]);
    await expect(withRetry(op.attempt, DEFAULT_RETRY, hooks)).rejects.toThrow("bug");
    expect(op.calls).toBe(1);
  });

  it("waits as long as Retry-After asks, plus at most 10% jitter", async () => {
    sleeps.length = 0;
    const op = failing([err("rate_limit", 2000)]);
    await withRetry(op.attempt, DEFAULT_RETRY, hooks);
    expect(sleeps).toEqual([2100]);
  });

  it("gives up at once when Retry-After is longer than it will wait", async () => {
    const op = failing([err("rate_limit", 3_600_000)]);
    await expect(withRetry(op.attempt, DEFAULT_RETRY, hooks)).rejects.toMatchObject({
      kind: "rate_limit",
    });
    expect(op.calls).toBe(1);
  });

  it("stops after `retries` further attempts", async () => {
    const op = failing(Array.from({ length: 10 }, () => err("server")));
    await expect(withRetry(op.attempt, { ...DEFAULT_RETRY, retries: 2 }, hooks)).rejects.toThrow();
    expect(op.calls).toBe(3);
  });

  it("stops waiting when aborted", async () => {
    const controller = new AbortController();
    const op = failing([err("server"), err("server")]);
    const run = withRetry(
      op.attempt,
      { ...DEFAULT_RETRY, minDelayMs: 10_000 },
      {
        signal: controller.signal,
        random: () => 0.99,
      },
    );
    setTimeout(() => controller.abort(new Error("stop")), 20);
    await expect(run).rejects.toThrow("stop");
    expect(op.calls).toBe(1);
  });
});

describe("retryDelay", () => {
  it("caps the backoff ceiling at maxDelayMs", () => {
    const policy = { ...DEFAULT_RETRY, minDelayMs: 1000, maxDelayMs: 4000 };
    expect(retryDelay(err("server"), 10, policy, () => 0.999)).toBeLessThanOrEqual(4000);
    expect(retryDelay(err("server"), 0, policy, () => 0)).toBe(0);
  });
});
