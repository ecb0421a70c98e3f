import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiEmbedder } from "../src/index.js";
import { API_KEY, embeddingFailure, expectedVector, expectVector } from "./helpers.js";
import {
  apiError,
  type OpenAIWireServer,
  overloaded,
  startOpenAIWireServer,
} from "./openai-wire-server.js";

interface BatchInputLine {
  custom_id: string;
  method: string;
  url: string;
  body: { model: string; input: string[]; encoding_format: string };
}

const texts = Array.from({ length: 10 }, (_, i) => `memory note number ${i}`);

describe("the Batch API path", () => {
  let server: OpenAIWireServer;
  beforeEach(async () => {
    server = await startOpenAIWireServer({ apiKey: API_KEY });
  });
  afterEach(() => server.close());

  const make = (options: Parameters<typeof openaiEmbedder>[0] = {}) =>
    openaiEmbedder({
      apiKey: API_KEY,
      baseUrl: server.baseUrl,
      batch: true,
      batchMinTexts: 5,
      batchPollIntervalMs: 10,
      maxBatchSize: 4,
      ...options,
    });

  it("uploads a JSONL file, starts a batch, polls it, reads the results and cleans up", async () => {
    server.batch = { reverseOutput: true };
    const embedder = await make();
    expect(embedder.maxBatchSize).toBe(50_000);
    expect(embedder.maxTokensPerRequest).toBeUndefined();
    expect(embedder.maxConcurrency).toBe(2);

    const vectors = await embedder.embedBatch(texts);

    for (const [i, text] of texts.entries()) expectVector(vectors[i], expectedVector(text, 1536));
    expect(server.count("POST /embeddings")).toBe(0);
    expect(server.count("POST /files")).toBe(1);
    expect(server.count("POST /batches")).toBe(1);
    // validating → in_progress → finalizing → completed
    expect(server.count("GET /batches/:id")).toBe(3);
    expect(server.count("GET /files/:id/content")).toBe(1);
    expect(server.count("DELETE /files/:id")).toBe(2); // input and output
    expect(server.count("POST /batches/:id/cancel")).toBe(0);
    expect(server.files.size).toBe(0);

    const upload = server.requests.find((r) => r.path === "/files")?.body as {
      fields: Record<string, string>;
      file: { name: string; text: string };
    };
    expect(upload.fields.purpose).toBe("batch");
    expect(upload.file.name).toMatch(/\.jsonl$/);
    const lines = upload.file.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as BatchInputLine);
    expect(lines.map((l) => l.body.input)).toEqual([
      texts.slice(0, 4),
      texts.slice(4, 8),
      texts.slice(8),
    ]);
    expect(new Set(lines.map((l) => l.custom_id)).size).toBe(3);
    for (const line of lines) {
      expect(line).toMatchObject({
        method: "POST",
        url: "/v1/embeddings",
        body: { model: "text-embedding-3-small", encoding_format: "base64" },
      });
    }
    const create = server.requests.find((r) => r.path === "/batches")?.body;
    expect(create).toMatchObject({
      endpoint: "/v1/embeddings",
      completion_window: "24h",
      input_file_id: expect.stringMatching(/^file-/),
    });
  });

  it("sends calls below batchMinTexts as ordinary requests", async () => {
    const embedder = await make();
    const vectors = await embedder.embedBatch(texts.slice(0, 4));
    expect(server.count("POST /embeddings")).toBe(1);
    expect(server.count("POST /files")).toBe(0);
    expectVector(vectors[3], expectedVector(texts[3] as string, 1536));
  });

  it("a batch that fails validation → bad_input naming OpenAI's errors", async () => {
    server.batch = {
      failValidation: [
        {
          code: "invalid_json_line",
          message: "This line is not parseable as valid JSON.",
          line: 2,
        },
      ],
    };
    const embedder = await make();
    const error = await embeddingFailure(() => embedder.embedBatch(texts));
    expect(error.kind).toBe("bad_input");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("invalid_json_line: This line is not parseable as valid JSON.");
    expect(error.message).toContain("(line 2)");
    expect(server.count("GET /batches/:id")).toBe(1);
    expect(server.count("GET /files/:id/content")).toBe(0);
    expect(server.count("DELETE /files/:id")).toBe(1);
  });

  it("a batch refused for the enqueued-token limit → rate_limit", async () => {
    server.batch = {
      failValidation: [
        {
          code: "token_limit_exceeded",
          message:
            "Enqueued token limit reached for text-embedding-3-small in organization org-engramtests. Limit: 3,000,000 enqueued tokens. Please try again once some in_progress batches have been completed.",
        },
      ],
    };
    const error = await embeddingFailure(async () => (await make()).embedBatch(texts));
    expect(error.kind).toBe("rate_limit");
    expect(error.retryable).toBe(true);
  });

  it("failed lines from the error file are classified; a final one wins", async () => {
    server.batch = {
      lineFailure: (id) => {
        if (id.endsWith("-0")) {
          return { status: 500, body: apiError("The server had an error.", "server_error") };
        }
        if (id.endsWith("-2")) {
          return {
            status: 400,
            body: apiError(
              "This model's maximum context length is 8192 tokens, however you requested 9001 tokens (9001 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
              "invalid_request_error",
            ),
          };
        }
        return undefined;
      },
    };
    const embedder = await make();
    const error = await embeddingFailure(() => embedder.embedBatch(texts));
    expect(error.kind).toBe("too_long");
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/2 of 3 requests failed/);
    expect(server.count("GET /files/:id/content")).toBe(2); // output and error file
    expect(server.count("DELETE /files/:id")).toBe(3);
  });

  it("an insufficient_quota line → quota", async () => {
    server.batch = {
      lineFailure: (id) =>
        id.endsWith("-1")
          ? {
              status: 429,
              body: apiError(
                "You exceeded your current quota, please check your plan and billing details.",
                "insufficient_quota",
                null,
                "insufficient_quota",
              ),
            }
          : undefined,
    };
    const error = await embeddingFailure(async () => (await make()).embedBatch(texts));
    expect(error.kind).toBe("quota");
  });

  it("a malformed result line → bad_response", async () => {
    server.batch = {
      lineFailure: (id) =>
        id.endsWith("-1") ? { status: 200, body: { object: "list", data: [] } } : undefined,
    };
    const error = await embeddingFailure(async () => (await make()).embedBatch(texts));
    expect(error.kind).toBe("bad_response");
    expect(error.message).toContain("0 embeddings for 4 inputs");
  });

  it("a batch still running at batchTimeoutMs is cancelled → timeout", async () => {
    server.batch = { stall: true };
    const embedder = await make({ batchTimeoutMs: 150 });
    const error = await embeddingFailure(() => embedder.embedBatch(texts));
    expect(error.kind).toBe("timeout");
    expect(error.message).toMatch(/still in_progress after 150 ms; it was cancelled/);
    expect(server.count("POST /batches/:id/cancel")).toBe(1);
    expect([...server.batches.values()][0]?.status).toBe("cancelling");
    expect(server.count("GET /files/:id/content")).toBe(0);
    expect(server.count("DELETE /files/:id")).toBe(0); // the cancelling batch keeps its input
  });

  it("aborting the call cancels the batch and rejects with the abort reason", async () => {
    server.batch = { stall: true };
    const controller = new AbortController();
    const reason = new Error("sync stopped");
    let polls = 0;
    server.always("GET /batches/:id", async (_req, _res, next) => {
      if (++polls === 2) controller.abort(reason);
      await next();
    });
    const embedder = await make();
    await expect(embedder.embedBatch(texts, controller.signal)).rejects.toBe(reason);
    expect(server.count("POST /batches/:id/cancel")).toBe(1);
  });

  it("an expired batch → timeout", async () => {
    server.batch = { expire: true };
    const error = await embeddingFailure(async () => (await make()).embedBatch(texts));
    expect(error.kind).toBe("timeout");
    expect(error.message).toContain("expired");
  });

  it("a transient failure while polling waits for the next poll", async () => {
    server.once("GET /batches/:id", overloaded());
    const embedder = await make();
    const vectors = await embedder.embedBatch(texts);
    expect(vectors).toHaveLength(10);
    expect(server.count("GET /batches/:id")).toBe(4);
    expect(server.count("POST /batches")).toBe(1);
  });

  it("batchWait: false is refused with bad_input before any request", async () => {
    const error = await embeddingFailure(() => make({ batchWait: false }));
    expect(error.kind).toBe("bad_input");
    expect(error.message).toContain("batchWait: false is not supported yet");
    expect(server.requests).toHaveLength(0);
  });
});
