import { sha256Hex } from "@engram/core/driver";
import { embedTexts } from "@engram/core/internal";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiEmbedder } from "../src/index.js";
import { API_KEY, expectedVector, expectVector, norm } from "./helpers.js";
import {
  mangledEmbeddings,
  type OpenAIWireServer,
  startOpenAIWireServer,
  toBase64,
} from "./openai-wire-server.js";

interface EmbeddingsBody {
  model: string;
  input: string[];
  encoding_format?: string;
  dimensions?: number;
}

/** The JSON body of request `n`. */
function bodyOf(server: OpenAIWireServer, n: number): EmbeddingsBody {
  return server.requests[n]?.body as EmbeddingsBody;
}

// Vector shape and order, empty batches, aborts: the conformance kit (conformance.test.ts).
describe("openaiEmbedder against OpenAI's wire format", () => {
  let server: OpenAIWireServer;
  beforeEach(async () => {
    server = await startOpenAIWireServer({ apiKey: API_KEY });
  });
  afterEach(() => server.close());

  const make = (options: Parameters<typeof openaiEmbedder>[0] = {}) =>
    openaiEmbedder({ apiKey: API_KEY, baseUrl: server.baseUrl, ...options });

  it("embeds a batch in one request, asking for base64, and returns normalised vectors in order", async () => {
    const embedder = await make();
    expect(server.requests).toHaveLength(0); // a known model needs no probe
    expect(embedder).toMatchObject({
      id: "openai",
      model: "text-embedding-3-small",
      dims: 1536,
      endpoint: server.baseUrl,
      maxBatchSize: 2048,
      maxTokensPerRequest: 8000,
      maxConcurrency: 4,
    });

    const texts = ["Deploys run on GitHub Actions.", "用户偏好：深色模式", "rollback plan"];
    const vectors = await embedder.embedBatch(texts);

    expect(server.count("POST /embeddings")).toBe(1);
    const [request] = server.requests;
    expect(request?.body).toEqual({
      model: "text-embedding-3-small",
      input: texts,
      encoding_format: "base64",
    });
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers["x-stainless-retry-count"]).toBe("0");
    expect(vectors).toHaveLength(3);
    texts.forEach((text, i) => {
      expectVector(vectors[i], expectedVector(text, 1536));
      expect(norm(vectors[i])).toBeCloseTo(1, 5);
    });
  });

  it("places each vector by its index field, whatever order data comes in", async () => {
    server.once(
      "POST /embeddings",
      mangledEmbeddings((real) => ({ ...real, data: [...real.data].reverse() })),
    );
    const embedder = await make();
    const vectors = await embedder.embedBatch(["first", "second", "third"]);
    expectVector(vectors[0], expectedVector("first", 1536));
    expectVector(vectors[2], expectedVector("third", 1536));
  });

  it("decodes base64 little-endian float32 exactly", async () => {
    const raw = new Array(1536).fill(0);
    raw[0] = 3;
    raw[1] = -4;
    raw[1535] = 12;
    server.once(
      "POST /embeddings",
      mangledEmbeddings((real) => ({
        ...real,
        data: [{ object: "embedding", index: 0, embedding: toBase64(raw) }],
      })),
    );
    const embedder = await make();
    const [vector] = await embedder.embedBatch(["x"]);
    expect(vector?.[0]).toBeCloseTo(3 / 13, 7);
    expect(vector?.[1]).toBeCloseTo(-4 / 13, 7);
    expect(vector?.[1535]).toBeCloseTo(12 / 13, 7);
    expect(vector?.[2]).toBe(0);
  });

  it("sends dimensions, extra headers, organization and project", async () => {
    const embedder = await make({
      model: "text-embedding-3-large",
      dimensions: 256,
      headers: { "X-Proxy-Token": "proxy-abc" },
      organization: "org-engram",
      project: "proj_engram",
    });
    expect(embedder.dims).toBe(256);
    const [vector] = await embedder.embedBatch(["short"]);
    expectVector(vector, expectedVector("short", 256));
    const request = server.requests[0];
    expect(bodyOf(server, 0).dimensions).toBe(256);
    expect(request?.headers["x-proxy-token"]).toBe("proxy-abc");
    expect(request?.headers["openai-organization"]).toBe("org-engram");
    expect(request?.headers["openai-project"]).toBe("proj_engram");
  });

  it("sends a base URL's query with every request but keeps it (and the key) out of endpoint", async () => {
    const embedder = await make({ baseUrl: `${server.baseUrl}/?api-version=2024-10-21` });
    expect(embedder.endpoint).toBe(server.baseUrl);
    expect(embedder.endpoint).not.toContain(API_KEY);
    await embedder.embedBatch(["a"]);
    expect(server.requests[0]?.path).toBe("/embeddings");
    expect(server.requests[0]?.query.get("api-version")).toBe("2024-10-21");
  });

  it("splits a call over maxBatchSize or maxTokensPerRequest into requests, order kept", async () => {
    const embedder = await make({ maxBatchSize: 2, maxTokensPerRequest: 10, concurrency: 2 });
    const texts = ["one", "two", "three", "four", "x".repeat(60), "six"];
    const vectors = await embedder.embedBatch(texts);
    // [one two] [three four] [60 chars = 15 tokens, alone] [six]
    expect(server.requests.map((r) => (r.body as EmbeddingsBody).input)).toEqual(
      expect.arrayContaining([["one", "two"], ["three", "four"], ["x".repeat(60)], ["six"]]),
    );
    expect(server.count("POST /embeddings")).toBe(4);
    for (const [i, text] of texts.entries()) expectVector(vectors[i], expectedVector(text, 1536));
  });

  it("reads number arrays from servers that ignore encoding_format", async () => {
    const plain = await startOpenAIWireServer({ apiKey: API_KEY, ignoreEncodingFormat: true });
    try {
      const embedder = await openaiEmbedder({ apiKey: API_KEY, baseUrl: plain.baseUrl });
      const [vector] = await embedder.embedBatch(["floats please"]);
      expect(Array.isArray(bodyOf(plain, 0).input)).toBe(true);
      expectVector(vector, expectedVector("floats please", 1536));
    } finally {
      await plain.close();
    }
  });

  it("serves core's embedTexts, which batches by the embedder's limits", async () => {
    const embedder = await make({ maxBatchSize: 3 });
    const texts = ["a1", "b2", "c3", "d4", "e5", "f6", "g7"];
    const { vectors, stats } = await embedTexts(
      texts.map((text) => ({ text, hash: sha256Hex(text) })),
      embedder,
    );
    expect(stats.requests).toBe(3);
    expect(server.count("POST /embeddings")).toBe(3);
    for (const [i, text] of texts.entries()) expectVector(vectors[i], expectedVector(text, 1536));
  });
});

describe("OpenAI-compatible servers without a key (Ollama-style)", () => {
  let server: OpenAIWireServer;
  beforeEach(async () => {
    server = await startOpenAIWireServer();
  });
  afterEach(() => server.close());

  it("sends a placeholder key and learns an unknown model's size with one probe", async () => {
    const embedder = await openaiEmbedder({ baseUrl: server.baseUrl, model: "nomic-embed-text" });
    expect(server.count("POST /embeddings")).toBe(1);
    expect(embedder.dims).toBe(768);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer engram-no-key");

    const vectors = await embedder.embedBatch(["local", "models"]);
    expect(server.count("POST /embeddings")).toBe(2);
    expectVector(vectors[1], expectedVector("models", 768));
  });

  it("skips the probe when dims is set", async () => {
    const embedder = await openaiEmbedder({
      baseUrl: server.baseUrl,
      model: "nomic-embed-text",
      dims: 768,
    });
    expect(embedder.dims).toBe(768);
    expect(server.requests).toHaveLength(0);
  });

  it("uses dimensions as the size of an unknown model without probing", async () => {
    const embedder = await openaiEmbedder({
      baseUrl: server.baseUrl,
      model: "mxbai-embed-large",
      dimensions: 512,
    });
    expect(embedder.dims).toBe(512);
    expect(server.requests).toHaveLength(0);
    const [vector] = await embedder.embedQuery("q").then((v) => [v]);
    expectVector(vector, expectedVector("q", 512));
  });
});
