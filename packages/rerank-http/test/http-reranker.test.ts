import { selectReranker } from "@engram/core";
import { isEmbeddingError } from "@engram/core/driver";
import { rerankerSettings } from "@engram/core/internal";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { httpReranker, httpRerankerProvider } from "../src/index.js";
import { overlapScore, type RerankServer, startRerankServer } from "./rerank-wire-server.js";

const QUERY = "rollback plan for the deploy";
const DOCS = [
  "Lunch was noodles on Friday.",
  "The rollback plan for the deploy is in ops/rollback.md.",
  "Deploy to staging first.",
  "回滚计划在 ops 目录里。",
];

describe("httpReranker against a local /v1/rerank server", () => {
  let server: RerankServer;
  beforeAll(async () => {
    server = await startRerankServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });

  it("sends Cohere's request shape and returns the scores in the order sent", async () => {
    const reranker = httpReranker({ baseUrl: server.url, model: "rerank-v3.5", apiKey: "k-1" });
    const scores = await reranker.rerank(QUERY, DOCS);
    expect(scores).toEqual(DOCS.map((d) => overlapScore(QUERY, d)));
    expect(scores[1]).toBeGreaterThan(scores[2] as number);
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/rerank");
    expect(request?.body).toEqual({
      model: "rerank-v3.5",
      query: QUERY,
      documents: DOCS,
      return_documents: false,
    });
    expect(request?.headers.authorization).toBe("Bearer k-1");
    expect(reranker).toMatchObject({ id: "http", model: "rerank-v3.5", maxDocuments: 100 });
    expect(reranker.endpoint).toBe(`${server.url}/v1/rerank`);
  });

  it("reads Voyage's data list and TEI's bare list", async () => {
    const voyage = httpReranker({ baseUrl: `${server.url}/voyage`, model: "rerank-2" });
    expect(await voyage.rerank(QUERY, DOCS)).toEqual(DOCS.map((d) => overlapScore(QUERY, d)));
    const tei = httpReranker({ baseUrl: server.url, api: "tei", path: "/rerank" });
    expect(await tei.rerank(QUERY, DOCS)).toEqual(DOCS.map((d) => overlapScore(QUERY, d)));
    expect(server.requests.at(-1)?.body).toEqual({ query: QUERY, texts: DOCS, raw_scores: false });
  });

  // Status codes, bad bodies, aborts and empty lists: the conformance kit (conformance.test.ts).
  it("takes the server's message into the error; a result naming no document, an unreachable server", async () => {
    const reranker = httpReranker({ baseUrl: server.url });
    const failure = async (run: () => Promise<unknown>) => {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isEmbeddingError(error)).toBe(true);
      return error as { kind: string; message: string };
    };
    server.failNext({ status: 503, body: { error: { message: "overloaded" } } });
    const server503 = await failure(() => reranker.rerank(QUERY, DOCS));
    expect(server503.kind).toBe("server");
    expect(server503.message).toContain("overloaded");
    server.failNext({ status: 401, body: { detail: "invalid api token" } });
    expect((await failure(() => reranker.rerank(QUERY, DOCS))).message).toContain(
      "invalid api token",
    );
    server.failNext({ body: { results: [{ index: 0, relevance_score: 0.5 }] } });
    expect(await failure(() => reranker.rerank(QUERY, DOCS))).toMatchObject({
      kind: "bad_response",
      message: expect.stringContaining("document 1 of 4 has no score"),
    });
    server.failNext({ body: { results: [{ index: 9, relevance_score: 0.5 }] } });
    expect(await failure(() => reranker.rerank(QUERY, DOCS))).toMatchObject({
      kind: "bad_response",
    });
    const gone = httpReranker({ baseUrl: "http://127.0.0.1:9" });
    expect(await failure(() => gone.rerank(QUERY, DOCS))).toMatchObject({ kind: "network" });
  });

  it("is chosen from the config; settings from ENGRAM_RERANK_HTTP_*; a bad URL is a config error", async () => {
    const registry = { http: async () => httpRerankerProvider };
    const reranker = await selectReranker(
      { provider: "http", providers: { http: { model: "jina-reranker-v2" } } },
      registry,
      { ENGRAM_RERANK_HTTP_BASE_URL: server.url },
    );
    expect(reranker?.model).toBe("jina-reranker-v2");
    expect(await reranker?.rerank(QUERY, DOCS)).toHaveLength(DOCS.length);
    await expect(selectReranker({ provider: "http", providers: {} }, registry, {})).rejects.toThrow(
      /reranker "http" cannot run: no baseUrl/,
    );
    expect(() => httpReranker({ baseUrl: "ftp://x" })).toThrow(/not an http\(s\) URL/);
    expect(() =>
      rerankerSettings(httpRerankerProvider, { baseUrl: "http://x", modle: "typo" }, {}),
    ).toThrow(/reranker "http" has no setting "modle"/);
    expect(await selectReranker({ provider: "none", providers: {} }, registry, {})).toBeNull();
  });
});
