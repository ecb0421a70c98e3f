import { type EmbeddingError, type EmbeddingFailure, isEmbeddingError } from "@engram/core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { geminiEmbedder } from "../src/index.js";
import {
  type GeminiWireServer,
  googleError,
  inputTooLong,
  invalidArgument,
  leakedKey,
  overloaded,
  perDayQuota,
  perMinuteLimit,
  startGeminiWireServer,
  type WireReply,
} from "./gemini-wire-server.js";

let server: GeminiWireServer;
beforeEach(async () => {
  server = await startGeminiWireServer();
});
afterEach(async () => {
  await server.close();
});

async function failure(
  reply: WireReply | undefined,
  options: Parameters<typeof geminiEmbedder>[0] = {},
): Promise<EmbeddingError> {
  if (reply) server.queue(reply);
  const e = await geminiEmbedder({ apiKey: server.apiKey, baseUrl: server.url, ...options });
  const error = await e.embedBatch(["some text"]).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isEmbeddingError(error)) throw new Error(`expected an EmbeddingError, got ${String(error)}`);
  return error;
}

/** Every text the error exposes: message, hint, the CLI's one-liner, the cause chain. */
function exposedText(error: EmbeddingError): string {
  const parts = [error.message, error.hint ?? "", error.describe(), error.stack ?? ""];
  for (let c: unknown = error.cause; c; c = (c as { cause?: unknown }).cause) {
    parts.push(c instanceof Error ? `${c.message} ${c.stack}` : String(c));
  }
  return parts.join("\n");
}

// A 429 rate limit, a bad key, a 500, an HTML page and a null value: the conformance kit.
describe("HTTP failures map to engram's kinds, one request each", () => {
  const cases: Array<{
    name: string;
    reply: () => WireReply;
    kind: EmbeddingFailure;
    status: number;
    retryable: boolean;
    message: RegExp;
  }> = [
    {
      name: "429 per-day quota → quota (final)",
      reply: () => perDayQuota(),
      kind: "quota",
      status: 429,
      retryable: false,
      message: /RESOURCE_EXHAUSTED/,
    },
    {
      name: "403 PERMISSION_DENIED → auth",
      reply: () => leakedKey(),
      kind: "auth",
      status: 403,
      retryable: false,
      message: /PERMISSION_DENIED: Your API key was reported as leaked/,
    },
    {
      name: "400 INVALID_ARGUMENT → bad_input",
      reply: () =>
        invalidArgument("* BatchEmbedContentsRequest.requests[0].task_type: unknown enum"),
      kind: "bad_input",
      status: 400,
      retryable: false,
      message: /task_type/,
    },
    {
      name: "400 input over the token limit → too_long",
      reply: () => inputTooLong(),
      kind: "too_long",
      status: 400,
      retryable: false,
      message: /exceeds the maximum number of tokens allowed \(2048\)/,
    },
    {
      name: "503 UNAVAILABLE → server",
      reply: () => overloaded(),
      kind: "server",
      status: 503,
      retryable: true,
      message: /UNAVAILABLE: The model is overloaded/,
    },
    {
      name: "502 HTML from a proxy → server",
      reply: () => ({
        status: 502,
        headers: { "content-type": "text/html" },
        text: "<html><body><h1>502 Bad Gateway</h1></body></html>",
      }),
      kind: "server",
      status: 502,
      retryable: true,
      message: /502 Bad Gateway/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const error = await failure(c.reply());
      expect(error.kind).toBe(c.kind);
      expect(error.provider).toBe("gemini");
      expect(error.status).toBe(c.status);
      expect(error.retryable).toBe(c.retryable);
      expect(error.message).toMatch(c.message);
      expect(error.message).toMatch(new RegExp(`^gemini: HTTP ${c.status}: `));
      // One attempt: the SDK retries none of these (429/500/503 are its default retry codes).
      expect(server.requests).toHaveLength(1);
      expect(exposedText(error)).not.toContain(server.apiKey);
    });
  }

  it("a real wrong key (the server checks it) → auth, key not in the error", async () => {
    const error = await failure(undefined, { apiKey: "AIzaSy-wrong-key-zyxwvutsrqponmlkjihgf" });
    expect(error.kind).toBe("auth");
    expect(error.status).toBe(400);
    expect(server.requests).toHaveLength(1);
    expect(exposedText(error)).not.toContain("AIzaSy-wrong-key-zyxwvutsrqponmlkjihgf");
  });

  it("an unknown model → bad_input naming the model", async () => {
    const error = await failure(undefined, { model: "gemini-embedding-999", dims: 3072 });
    expect(error.kind).toBe("bad_input");
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/models\/gemini-embedding-999 is not found/);
    expect(server.requests).toHaveLength(1);
  });

  it("a key echoed back by a proxy is redacted from message and cause", async () => {
    const error = await failure(
      googleError(400, "INVALID_ARGUMENT", `bad header x-goog-api-key: ${server.apiKey}`),
    );
    expect(error.message).toContain("x-goog-api-key: ***");
    expect(exposedText(error)).not.toContain(server.apiKey);
  });
});

describe("how long to wait", () => {
  it("takes the delay from RetryInfo.retryDelay", async () => {
    const error = await failure(perMinuteLimit("17s"));
    expect(error.kind).toBe("rate_limit");
    expect(error.retryAfterMs).toBe(17_000);
  });

  it("prefers a Retry-After header to RetryInfo", async () => {
    const reply = perMinuteLimit("33s");
    const error = await failure({ ...reply, headers: { "retry-after": "7" } });
    expect(error.retryAfterMs).toBe(7_000);
  });

  it("leaves the delay unset for a used-up daily quota (RetryInfo's seconds do not apply)", async () => {
    const error = await failure(perDayQuota("45s"));
    expect(error.kind).toBe("quota");
    expect(error.retryAfterMs).toBeUndefined();
  });

  it("reads a 429 that lists both a per-minute and a per-day violation as quota", async () => {
    const reply = perMinuteLimit("20s");
    const body = reply.json as { error: { details: Array<Record<string, unknown>> } };
    const quota = body.error.details[1] as { violations: Array<Record<string, unknown>> };
    quota.violations.push({
      quotaMetric: "generativelanguage.googleapis.com/embed_content_free_tier_requests",
      quotaId: "EmbedContentRequestsPerDayPerUserPerProjectPerModel-FreeTier",
      quotaDimensions: { model: "gemini-embedding-1.0", location: "global" },
      quotaValue: "1000",
    });
    const error = await failure(reply);
    expect(error.kind).toBe("quota");
  });

  it("a bare 429 without details is a rate limit with no delay", async () => {
    const error = await failure(
      googleError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    );
    expect(error.kind).toBe("rate_limit");
    expect(error.retryAfterMs).toBeUndefined();
  });
});

describe("malformed 200 answers → bad_response, one request each", () => {
  const bodies: Array<{ name: string; reply: WireReply; message: RegExp }> = [
    { name: "JSON null", reply: { status: 200, json: null }, message: /batchEmbedContents/ },
    { name: "no embeddings", reply: { status: 200, json: {} }, message: /no embeddings list/ },
    {
      name: "too few embeddings",
      reply: { status: 200, json: { embeddings: [] } },
      message: /holds 0 embeddings for 1 texts/,
    },
    {
      name: "embedding without values",
      reply: { status: 200, json: { embeddings: [{}] } },
      message: /embedding 0 has no values/,
    },
    {
      name: "wrong vector size",
      reply: { status: 200, json: { embeddings: [{ values: [0.1, 0.2, 0.3] }] } },
      message: /embedding 0 has 3 values, expected 3072/,
    },
    {
      name: "a value that is not a number",
      reply: {
        status: 200,
        json: { embeddings: [{ values: [...Array(3071).fill(0.01), "0.5"] }] },
      },
      message: /holds "0.5", not a finite number/,
    },
    {
      name: "an all-zero vector",
      reply: { status: 200, json: { embeddings: [{ values: Array(3072).fill(0) }] } },
      message: /all zeros/,
    },
  ];

  for (const b of bodies) {
    it(b.name, async () => {
      const error = await failure(b.reply);
      expect(error.kind).toBe("bad_response");
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(b.message);
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe("refused before any request", () => {
  it("more texts than maxBatchSize → bad_input, no request", async () => {
    const e = await geminiEmbedder({ apiKey: server.apiKey, baseUrl: server.url, maxBatchSize: 2 });
    const error = await e.embedBatch(["a", "b", "c"]).catch((thrown: unknown) => thrown);
    expect(isEmbeddingError(error) && error.kind).toBe("bad_input");
    expect(server.requests).toHaveLength(0);
  });
});
