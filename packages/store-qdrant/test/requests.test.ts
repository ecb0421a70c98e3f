import { EngramError, isEmbeddingError } from "@engram/core/driver";
import {
  QdrantClientResourceExhaustedError,
  QdrantClientTimeoutError,
  QdrantClientUnexpectedResponseError,
} from "@qdrant/js-client-rest";
import { describe, expect, it } from "vitest";
import { call, classify, retryableError, storeError } from "../src/requests.js";

/** The shape of the client's `ApiError` (status, headers, JSON body), which it does not export. */
function apiError(status: number, error: string, headers: Record<string, string> = {}) {
  return Object.assign(new Error("Bad Request"), {
    status,
    headers: new Headers(headers),
    data: { status: { error }, time: 0 },
  });
}

const where = { url: "http://qdrant:6333", collection: "engram_test" };
const noWait = { retries: 3, minDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 60_000 };

describe("classify", () => {
  it("reads status and the server's message from an API error", () => {
    expect(classify(apiError(400, "Wrong input: Vector dimension error"))).toMatchObject({
      kind: "http",
      status: 400,
      message: "Wrong input: Vector dimension error",
    });
  });

  it("knows the client's own error classes", () => {
    expect(classify(new QdrantClientTimeoutError("aborted"))).toMatchObject({ kind: "timeout" });
    expect(classify(new QdrantClientResourceExhaustedError("slow down", "7"))).toMatchObject({
      kind: "http",
      status: 429,
    });
    const unexpected = QdrantClientUnexpectedResponseError.forResponse({
      status: 503,
      statusText: "Service Unavailable",
      data: null,
      headers: new Headers(),
      url: "",
      ok: false,
    });
    expect(classify(unexpected)).toMatchObject({ kind: "http", status: 503 });
  });

  it("recognises fetch failures by their socket error code", () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6333"), {
        code: "ECONNREFUSED",
      }),
    });
    expect(classify(refused)).toMatchObject({ kind: "network" });
    expect(classify(new Error("something else"))).toMatchObject({ kind: "other" });
  });
});

describe("retryableError", () => {
  it("retries 429 (with its Retry-After), 5xx, timeouts and network failures", () => {
    const limited = retryableError(new QdrantClientResourceExhaustedError("slow down", "7"));
    expect(limited?.kind).toBe("rate_limit");
    expect(limited?.retryAfterMs).toBe(7000);
    expect(retryableError(apiError(503, "overloaded"))?.kind).toBe("server");
    expect(retryableError(apiError(429, "limit", { "retry-after": "2" }))?.retryAfterMs).toBe(2000);
    expect(retryableError(new QdrantClientTimeoutError("aborted"))?.kind).toBe("timeout");
    expect(
      retryableError(new TypeError("fetch failed", { cause: { code: "ECONNRESET" } }))?.kind,
    ).toBe("network");
  });

  it("never retries bad requests, auth failures or unknown errors", () => {
    expect(retryableError(apiError(400, "bad"))).toBeUndefined();
    expect(retryableError(apiError(401, "no key"))).toBeUndefined();
    expect(retryableError(apiError(404, "Collection `x` doesn't exist!"))).toBeUndefined();
    expect(retryableError(new Error("bug"))).toBeUndefined();
  });
});

describe("call", () => {
  it("retries retryable failures with core's backoff, then succeeds", async () => {
    let attempts = 0;
    const delays: number[] = [];
    const result = await call(
      where,
      "write chunks",
      noWait,
      async () => {
        attempts++;
        if (attempts === 1) throw new QdrantClientResourceExhaustedError("slow down", "0");
        if (attempts === 2) throw apiError(502, "bad gateway");
        return "ok";
      },
      { onRetry: (_error, _attempt, delay) => delays.push(delay) },
    );
    expect(result).toBe("ok");
    expect(attempts).toBe(3);
    expect(delays).toHaveLength(2);
  });

  it("gives up after the policy's retries with STORE_FAILED, never an embedding error", async () => {
    let attempts = 0;
    const failing = call(where, "write chunks", noWait, async () => {
      attempts++;
      throw apiError(503, "overloaded");
    });
    await expect(failing).rejects.toBeInstanceOf(EngramError);
    await failing.catch((error: EngramError) => {
      expect(isEmbeddingError(error)).toBe(false);
      expect(error.code).toBe("STORE_FAILED");
      expect(error.message).toContain("Could not write chunks: HTTP 503: overloaded");
      expect(error.message).toContain("http://qdrant:6333");
    });
    expect(attempts).toBe(4);
  });

  it("does not retry a final failure, and passes EngramErrors through", async () => {
    let attempts = 0;
    await expect(
      call(where, "read meta", noWait, async () => {
        attempts++;
        throw apiError(401, "Invalid api-key");
      }),
    ).rejects.toMatchObject({
      code: "STORE_FAILED",
      hint: expect.stringContaining("QDRANT_API_KEY"),
    });
    expect(attempts).toBe(1);
    const own = new EngramError("INVALID_ARGUMENT", "mine");
    await expect(call(where, "x", noWait, async () => Promise.reject(own))).rejects.toBe(own);
  });
});

describe("storeError", () => {
  it("names the fix for each cause", () => {
    const hint = (error: unknown) => storeError(error, where, "open the index").hint ?? "";
    expect(hint(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }))).toContain(
      "docker run -p 6333:6333 qdrant/qdrant",
    );
    expect(hint(apiError(403, "forbidden"))).toContain("apiKey");
    expect(hint(apiError(404, "Collection doesn't exist"))).toContain("engram sync");
    expect(hint(new QdrantClientTimeoutError("aborted"))).toContain("timeoutMs");
  });
});
