import { inspect } from "node:util";
import type { EmbeddingFailure } from "@engram/core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiEmbedder } from "../src/index.js";
import { API_KEY, embeddingFailure } from "./helpers.js";
import {
  apiError,
  contextLengthExceeded,
  dropConnection,
  insufficientQuota,
  json,
  mangledEmbeddings,
  type OpenAIWireServer,
  overloaded,
  type Responder,
  rateLimited,
  rawResponse,
  regionForbidden,
  stalledBody,
  startOpenAIWireServer,
  toBase64,
} from "./openai-wire-server.js";

describe("failures are classified, after exactly one request", () => {
  let server: OpenAIWireServer;
  beforeEach(async () => {
    server = await startOpenAIWireServer({ apiKey: API_KEY });
  });
  afterEach(() => server.close());

  const make = (options: Parameters<typeof openaiEmbedder>[0] = {}) =>
    openaiEmbedder({ apiKey: API_KEY, baseUrl: server.baseUrl, ...options });

  /** Fail the next embeddings request with `responder`; return the error and check one request. */
  async function failWith(responder: Responder, options = {}) {
    server.once("POST /embeddings", responder);
    const embedder = await make(options);
    const error = await embeddingFailure(() => embedder.embedBatch(["a", "b"]));
    expect(server.count("POST /embeddings")).toBe(1);
    expect(error.provider).toBe("openai");
    expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
    return error;
  }

  const cases: Array<[string, Responder, EmbeddingFailure, number | undefined]> = [
    ["429 insufficient_quota", insufficientQuota(), "quota", 429],
    ["400 maximum context length", contextLengthExceeded(), "too_long", 400],
    ["503 overloaded", overloaded(), "server", 503],
    ["403 unsupported region", regionForbidden(), "auth", 403],
    [
      "404 model_not_found",
      (_req, res) =>
        json(
          res,
          404,
          apiError(
            "The model `text-embedding-4` does not exist or you do not have access to it.",
            "invalid_request_error",
            null,
            "model_not_found",
          ),
        ),
      "bad_input",
      404,
    ],
  ];
  for (const [name, responder, kind, status] of cases) {
    it(`${name} → ${kind}`, async () => {
      const error = await failWith(responder);
      expect(error.kind).toBe(kind);
      expect(error.status).toBe(status);
    });
  }

  it("quota is final and carries OpenAI's message", async () => {
    const error = await failWith(insufficientQuota());
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("You exceeded your current quota");
    expect(error.retryAfterMs).toBeUndefined();
  });

  it("401 invalid_api_key → auth, with the key scrubbed from OpenAI's message", async () => {
    const embedder = await openaiEmbedder({
      apiKey: `${API_KEY}-revoked`,
      baseUrl: server.baseUrl,
    });
    const error = await embeddingFailure(() => embedder.embedBatch(["a"]));
    expect(error.kind).toBe("auth");
    expect(error.status).toBe(401);
    expect(error.message).toContain("Incorrect API key provided: sk-***");
    expect(error.message).not.toContain("sk-proj");
    expect(inspect(error, { depth: 10 })).not.toContain(API_KEY.slice(-4));
    expect(server.count("POST /embeddings")).toBe(1);
  });

  it("a server that echoes the whole key never gets it into the error", async () => {
    const error = await failWith((_req, res) =>
      json(res, 400, apiError(`bad key ${API_KEY} in request`, "invalid_request_error")),
    );
    expect(error.kind).toBe("bad_input");
    expect(error.message).not.toContain(API_KEY);
    expect(error.message).toContain("***");
  });

  it("429 rate limit → rate_limit with retry-after-ms", async () => {
    const error = await failWith(rateLimited({ retryAfterMs: "1250", retryAfter: "2" }));
    expect(error.kind).toBe("rate_limit");
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(1250);
  });

  it("429 rate limit → retry-after in seconds when there is no retry-after-ms", async () => {
    const error = await failWith(rateLimited({ retryAfter: "7" }));
    expect(error.retryAfterMs).toBe(7000);
  });

  it("429 rate limit without retry headers → the delay the message names", async () => {
    const error = await failWith(rateLimited({ tryAgainIn: "976ms" }));
    expect(error.kind).toBe("rate_limit");
    expect(error.retryAfterMs).toBe(976);
  });

  it("reads Go-style durations in the message (1m30.5s)", async () => {
    const error = await failWith(rateLimited({ tryAgainIn: "1m30.5s" }));
    expect(error.retryAfterMs).toBe(90_500);
  });

  it("429 rate limit with only x-ratelimit headers → the reset of the exhausted limit", async () => {
    const error = await failWith(rateLimited({ reset: "6m0s" }));
    expect(error.retryAfterMs).toBe(360_000);
  });

  it("400 without a length problem → bad_input (final)", async () => {
    const error = await failWith((_req, res) =>
      json(
        res,
        400,
        apiError(
          "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
          "invalid_request_error",
        ),
      ),
    );
    expect(error.kind).toBe("bad_input");
    expect(error.retryable).toBe(false);
  });

  it("a refused connection → network", async () => {
    const closed = await startOpenAIWireServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const embedder = await openaiEmbedder({ baseUrl, model: "nomic-embed-text", dims: 8 });
    const error = await embeddingFailure(() => embedder.embedBatch(["a"]));
    expect(error.kind).toBe("network");
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.message).toContain(baseUrl);
  });

  it("a dropped connection → network, one request", async () => {
    const error = await failWith(dropConnection());
    expect(error.kind).toBe("network");
  });

  // The server would stall for longer than the test may run: only timeoutMs can end it. (A slow
  // 500, 429, 401, HTML page, NaN and slow headers: the conformance kit, conformance.test.ts.)
  it("a body that stalls past timeoutMs → timeout, one request", async () => {
    const error = await failWith(stalledBody(120_000), { timeoutMs: 1500 });
    expect(error.kind).toBe("timeout");
  });
});

describe("malformed 200 responses → bad_response", () => {
  let server: OpenAIWireServer;
  beforeEach(async () => {
    server = await startOpenAIWireServer({ apiKey: API_KEY });
  });
  afterEach(() => server.close());

  const cases: Array<[string, Responder, RegExp]> = [
    [
      "broken JSON",
      rawResponse(200, "application/json", '{"object":"list","data":['),
      /unreadable/,
    ],
    ["no data", mangledEmbeddings((real) => ({ ...real, data: undefined })), /no "data"/],
    [
      "one vector too few",
      mangledEmbeddings((real) => ({ ...real, data: real.data.slice(1) })),
      /1 embeddings for 2/,
    ],
    [
      "a vector of the wrong size",
      mangledEmbeddings((real) => ({
        ...real,
        data: real.data.map((d) => ({ ...d, embedding: toBase64(new Array(768).fill(1)) })),
      })),
      /768 dimensions, expected 1536/,
    ],
    [
      "a repeated index",
      mangledEmbeddings((real) => ({ ...real, data: real.data.map((d) => ({ ...d, index: 0 })) })),
      /index 0 appears twice/,
    ],
    [
      "base64 that is not float32s",
      mangledEmbeddings((real) => ({
        ...real,
        data: real.data.map((d) => ({ ...d, embedding: "AAAAAAA=" })),
      })),
      /not float32s/,
    ],
    [
      "an all-zero vector",
      mangledEmbeddings((real) => ({
        ...real,
        data: real.data.map((d) => ({ ...d, embedding: new Array(1536).fill(0) })),
      })),
      /all zeros/,
    ],
  ];
  for (const [name, responder, message] of cases) {
    it(name, async () => {
      server.once("POST /embeddings", responder);
      const embedder = await openaiEmbedder({ apiKey: API_KEY, baseUrl: server.baseUrl });
      const error = await embeddingFailure(() => embedder.embedBatch(["a", "b"]));
      expect(error.kind).toBe("bad_response");
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(message);
      expect(server.count("POST /embeddings")).toBe(1);
    });
  }
});
