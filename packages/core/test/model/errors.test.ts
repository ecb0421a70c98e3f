import { describe, expect, it } from "vitest";
import {
  EmbeddingError,
  embeddingErrorFromHttp,
  isEmbeddingError,
  isProviderError,
  providerFailureOf,
} from "../../src/embedding/errors.js";
import { withRetry } from "../../src/embedding/retry.js";
import { isModelError, ModelError, modelErrorFromHttp } from "../../src/model/errors.js";

const http = (status: number, extra: Partial<Parameters<typeof modelErrorFromHttp>[0]> = {}) =>
  modelErrorFromHttp({ provider: "p", status, ...extra });

describe("modelErrorFromHttp", () => {
  it("classifies like embeddings, with MODEL_* codes and model hints", () => {
    const cases: Array<[number, string, boolean, string?]> = [
      [401, "auth", false],
      [403, "auth", false],
      [429, "rate_limit", true],
      [408, "timeout", true],
      [413, "too_long", false],
      [400, "too_long", false, "This model's maximum context length is 128000 tokens"],
      [400, "too_long", false, "context_length_exceeded"],
      [400, "bad_input", false, "Invalid schema for response_format"],
      [404, "bad_input", false],
      [500, "server", true],
      [503, "server", true],
    ];
    for (const [status, kind, retryable, message] of cases) {
      const error = http(status, { message });
      expect([status, error.kind, error.retryable]).toEqual([status, kind, retryable]);
      expect(error.code).toBe(`MODEL_${kind.toUpperCase()}`);
      expect(error).toBeInstanceOf(ModelError);
      expect(isModelError(error)).toBe(true);
      expect(isEmbeddingError(error)).toBe(false);
      // The same status means the same kind for an embedding API: one classification.
      expect(embeddingErrorFromHttp({ provider: "p", status, message }).kind).toBe(kind);
    }
    expect(http(400, { message: "context window exceeded" }).hint).toMatch(/context/);
  });

  it("lets the driver say a 429 is a used-up quota, and keeps Retry-After", () => {
    expect(http(429, { kind: "quota" }).retryable).toBe(false);
    expect(http(429, { headers: { "retry-after": "2" } }).retryAfterMs).toBe(2000);
  });
});

describe("classification by code, not by class", () => {
  it("reads errors thrown by another installed copy of core by their code", () => {
    // What a ModelError from another copy of @engram/core looks like to this one.
    const foreign = Object.assign(new Error("p: HTTP 429"), {
      code: "MODEL_RATE_LIMIT",
      retryAfterMs: 5,
    });
    expect(foreign).not.toBeInstanceOf(ModelError);
    expect(providerFailureOf(foreign)).toEqual({
      service: "model",
      kind: "rate_limit",
      retryable: true,
      retryAfterMs: 5,
    });
    expect(isModelError(foreign)).toBe(true);
    expect(isProviderError(foreign)).toBe(true);
    const quota = { code: "EMBEDDING_QUOTA", message: "x" };
    expect(providerFailureOf(quota)).toMatchObject({ service: "embedding", retryable: false });
    expect(providerFailureOf(new Error("plain"))).toBeUndefined();
    expect(providerFailureOf({ code: "MODEL_BUDGET" })).toBeUndefined();
  });

  it("retries a foreign retryable error and throws a foreign final one at once", async () => {
    let calls = 0;
    const sleep = async () => {};
    const out = await withRetry(
      async () => {
        if (++calls < 3) throw Object.assign(new Error("busy"), { code: "MODEL_SERVER" });
        return "ok";
      },
      { retries: 4, minDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 10 },
      { sleep },
    );
    expect([out, calls]).toEqual(["ok", 3]);
    calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw Object.assign(new Error("no key"), { code: "MODEL_AUTH" });
        },
        { retries: 4, minDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 10 },
        { sleep },
      ),
    ).rejects.toThrow("no key");
    expect(calls).toBe(1);
  });

  it("keeps the embedding exports working", () => {
    const error = new EmbeddingError("rate_limit", "openai", "slow down", { retryAfterMs: 10 });
    expect(error.code).toBe("EMBEDDING_RATE_LIMIT");
    expect(error.message).toBe("openai: slow down");
    expect(isEmbeddingError(error)).toBe(true);
    expect(isModelError(error)).toBe(false);
  });
});
