import { describe, expect, it } from "vitest";
import {
  EmbeddingError,
  embeddingErrorFromHttp,
  parseDurationMs,
  retryAfterFromHeaders,
} from "../../src/embedding/errors.js";

const http = (status: number, extra: Partial<Parameters<typeof embeddingErrorFromHttp>[0]> = {}) =>
  embeddingErrorFromHttp({ provider: "p", status, ...extra });

describe("embeddingErrorFromHttp", () => {
  it("maps statuses to kinds, with stable codes and retryability", () => {
    const cases: Array<[number, string, boolean, string?]> = [
      [401, "auth", false],
      [403, "auth", false],
      [429, "rate_limit", true],
      [408, "timeout", true],
      [413, "too_long", false],
      [400, "too_long", false, "This model's maximum context length is 8192 tokens"],
      [400, "bad_input", false, "Invalid model"],
      [404, "bad_input", false],
      [500, "server", true],
      [503, "server", true],
    ];
    for (const [status, kind, retryable, message] of cases) {
      const error = http(status, { message });
      expect([status, error.kind, error.retryable]).toEqual([status, kind, retryable]);
      expect(error.code).toBe(`EMBEDDING_${kind.toUpperCase()}`);
      expect(error.status).toBe(status);
      expect(error.message).toContain(`p: HTTP ${status}`);
      expect(error.hint).toBeTruthy();
    }
  });

  it("lets the driver say a 429 means the quota is used up (final, never retried)", () => {
    const error = http(429, { kind: "quota", message: "You exceeded your current quota" });
    expect(error.kind).toBe("quota");
    expect(error.retryable).toBe(false);
    expect(error).toBeInstanceOf(EmbeddingError);
  });

  it("takes the delay from headers first, then from the body", () => {
    expect(http(429, { headers: { "Retry-After": "3" } }).retryAfterMs).toBe(3000);
    expect(http(429, { headers: new Headers({ "retry-after-ms": "250" }) }).retryAfterMs).toBe(250);
    expect(http(429, { retryAfterMs: 17_000 }).retryAfterMs).toBe(17_000);
    expect(http(429, { headers: { "retry-after": "2" }, retryAfterMs: 9 }).retryAfterMs).toBe(2000);
    expect(http(429).retryAfterMs).toBeUndefined();
  });
});

describe("retryAfterFromHeaders", () => {
  it("reads seconds, HTTP dates and ignores garbage", () => {
    const inFive = new Date(Date.now() + 5000).toUTCString();
    const fromDate = retryAfterFromHeaders({ "retry-after": inFive }) ?? 0;
    expect(fromDate).toBeGreaterThan(3000);
    expect(fromDate).toBeLessThanOrEqual(5000);
    expect(retryAfterFromHeaders({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterFromHeaders(undefined)).toBeUndefined();
  });
});

describe("parseDurationMs", () => {
  it("parses protobuf durations", () => {
    expect(parseDurationMs("17s")).toBe(17_000);
    expect(parseDurationMs("1.5s")).toBe(1500);
    expect(parseDurationMs("17")).toBeUndefined();
    expect(parseDurationMs(5)).toBeUndefined();
  });
});
