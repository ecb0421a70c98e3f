import type { Embedder } from "@engram/core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { geminiEmbedder } from "../src/index.js";
import {
  fakeValues,
  type GeminiWireServer,
  sentRequests,
  startGeminiWireServer,
  type WireEmbedRequest,
} from "./gemini-wire-server.js";

let server: GeminiWireServer;
beforeEach(async () => {
  server = await startGeminiWireServer();
});
afterEach(async () => {
  await server.close();
});

const embedder = (options: Parameters<typeof geminiEmbedder>[0] = {}): Promise<Embedder> =>
  geminiEmbedder({ apiKey: server.apiKey, baseUrl: server.url, ...options });

/** The unit vector the server's values point to. */
function unit(values: number[]): number[] {
  const norm = Math.sqrt(values.reduce((sum, x) => sum + x * x, 0));
  return values.map((x) => x / norm);
}

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

function expectClose(actual: Float32Array, expected: number[]): void {
  expect(actual.length).toBe(expected.length);
  const worst = expected.reduce((max, x, i) => Math.max(max, Math.abs(x - (actual[i] ?? 0))), 0);
  expect(worst).toBeLessThan(1e-6);
}

function batchRequests(i = 0): WireEmbedRequest[] {
  return sentRequests(server.requests[i]);
}

// Vector shape and order, empty batches, aborts: the conformance kit (conformance.test.ts).
describe("geminiEmbedder against the batchEmbedContents wire format", () => {
  it("posts one batchEmbedContents request in Google's shape, with the key in x-goog-api-key", async () => {
    const e = await embedder();
    await e.embedBatch(["alpha", "beta"]);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(request?.headers["x-goog-api-key"]).toBe(server.apiKey);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toEqual({
      requests: [
        {
          content: { parts: [{ text: "alpha" }] },
          taskType: "RETRIEVAL_DOCUMENT",
          model: "models/gemini-embedding-001",
        },
        {
          content: { parts: [{ text: "beta" }] },
          taskType: "RETRIEVAL_DOCUMENT",
          model: "models/gemini-embedding-001",
        },
      ],
    });
  });

  it("sends outputDimensionality and normalises the shorter vectors the API leaves un-normalised", async () => {
    const e = await embedder({ outputDimensionality: 768 });
    expect(e.dims).toBe(768);
    const [vector] = await e.embedBatch(["short vectors"]);
    expect(batchRequests()[0]?.outputDimensionality).toBe(768);
    const raw = fakeValues("short vectors", "RETRIEVAL_DOCUMENT", 768);
    // The wire values really are not unit length, so normalising is the driver's doing.
    expect(Math.sqrt(raw.reduce((s, x) => s + x * x, 0))).toBeLessThan(0.9);
    expectClose(vector as Float32Array, unit(raw));
    expect(norm(vector as Float32Array)).toBeCloseTo(1, 5);
  });

  it("embeds queries with the query task type and documents with the document one", async () => {
    const e = await embedder();
    const query = await e.embedQuery("where do deploys run?");
    const [doc] = await e.embedBatch(["where do deploys run?"]);
    expect(server.requests).toHaveLength(2);
    expect(batchRequests(0)).toHaveLength(1);
    expect(batchRequests(0)[0]?.taskType).toBe("RETRIEVAL_QUERY");
    expect(batchRequests(1)[0]?.taskType).toBe("RETRIEVAL_DOCUMENT");
    expectClose(query, unit(fakeValues("where do deploys run?", "RETRIEVAL_QUERY", 3072)));
    expectClose(
      doc as Float32Array,
      unit(fakeValues("where do deploys run?", "RETRIEVAL_DOCUMENT", 3072)),
    );
  });

  it("uses configured task types and model", async () => {
    const e = await embedder({
      model: "text-embedding-004",
      taskType: "SEMANTIC_SIMILARITY",
      queryTaskType: "QUESTION_ANSWERING",
    });
    expect(e.model).toBe("text-embedding-004");
    expect(e.dims).toBe(768);
    await e.embedQuery("q");
    await e.embedBatch(["d"]);
    expect(server.requests.map((r) => r.url)).toEqual([
      "/v1beta/models/text-embedding-004:batchEmbedContents",
      "/v1beta/models/text-embedding-004:batchEmbedContents",
    ]);
    expect(batchRequests(0)[0]?.taskType).toBe("QUESTION_ANSWERING");
    expect(batchRequests(1)[0]?.taskType).toBe("SEMANTIC_SIMILARITY");
    expect(batchRequests(1)[0]?.model).toBe("models/text-embedding-004");
  });

  it("accepts the models/ prefix and reports the bare model name", async () => {
    const e = await embedder({ model: "models/gemini-embedding-001" });
    expect(e.model).toBe("gemini-embedding-001");
    await e.embedQuery("x");
    expect(server.requests[0]?.url).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
  });

  it("sends custom headers and the SDK's timeout header", async () => {
    const e = await embedder({ headers: { "x-proxy-token": "p-123" }, timeoutMs: 30_000 });
    await e.embedQuery("x");
    const headers = server.requests[0]?.headers ?? {};
    expect(headers["x-proxy-token"]).toBe("p-123");
    expect(headers["x-server-timeout"]).toBe("30");
    expect(headers["x-goog-api-client"]).toMatch(/google-genai-sdk\//);
  });

  it("reports the base URL as endpoint, never the key", async () => {
    const e = await embedder({ baseUrl: `${server.url}/` });
    expect(e.endpoint).toBe(server.url);
    expect(e.endpoint).not.toContain(server.apiKey);
    const google = await geminiEmbedder({ apiKey: "AIza-secret" });
    expect(google.endpoint).toBe("https://generativelanguage.googleapis.com");
  });

  it("declares the batch limits core batches by", async () => {
    const e = await embedder();
    expect(e.id).toBe("gemini");
    expect(e.maxBatchSize).toBe(100);
    expect(e.maxTokensPerRequest).toBe(204_800);
    expect(e.maxConcurrency).toBe(2);
    const tuned = await embedder({ maxBatchSize: 10, maxTokensPerRequest: 5000, concurrency: 4 });
    expect([tuned.maxBatchSize, tuned.maxTokensPerRequest, tuned.maxConcurrency]).toEqual([
      10, 5000, 4,
    ]);
  });

  it("embeds a full batch of 100 in one request", async () => {
    const e = await embedder({ outputDimensionality: 128 });
    const texts = Array.from({ length: 100 }, (_, i) => `note ${i}`);
    const vectors = await e.embedBatch(texts);
    expect(server.requests).toHaveLength(1);
    expect(batchRequests()).toHaveLength(100);
    expectClose(
      vectors[99] as Float32Array,
      unit(fakeValues("note 99", "RETRIEVAL_DOCUMENT", 128)),
    );
  });
});
