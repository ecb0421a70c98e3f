// The Reranker contract's checks live in the kit (@engram/core/testing): this file runs them
// against httpReranker and the local rerank server; http-reranker.test.ts keeps the wire format's.
import { describeRerankerConformance, type RerankerConformanceSubject } from "@engram/core/testing";
import { describe } from "vitest";
import { type HttpRerankerOptions, httpReranker } from "../src/index.js";
import { startRerankServer } from "./rerank-wire-server.js";

const API_KEY = "rr-live-0123456789abcdefghijklmnop";

/** The reranker over `options`, against a new local server whose failures the kit injects. */
async function subject(
  options: Omit<HttpRerankerOptions, "baseUrl">,
): Promise<RerankerConformanceSubject> {
  const server = await startRerankServer();
  return {
    reranker: httpReranker({ baseUrl: server.url, apiKey: API_KEY, ...options }),
    secrets: [API_KEY],
    requests: () => server.requests.length,
    failNext: {
      rate_limit: () => server.failNext({ status: 429, body: { message: "Too many requests" } }),
      auth: () => server.failNext({ status: 401, body: { message: "invalid api token" } }),
      server: () =>
        server.failNext({ status: 500, body: { error: { message: "internal error" } } }),
      malformed: () => server.failNext({ text: "<html>proxy login</html>" }),
      nan_score: () =>
        server.failNext({ body: { results: [{ index: 0, relevance_score: "NaN" }] } }),
      slow: () => server.failNext({ stallMs: 120_000 }),
    },
    close: () => server.close(),
  };
}

describeRerankerConformance("http, Cohere's /v1/rerank", () => subject({ model: "rerank-v3.5" }));
describeRerankerConformance("http, TEI's /rerank", () => subject({ api: "tei", path: "/rerank" }));

// A real rerank server (TEI, Infinity, vLLM, llama.cpp's server…) adds the semantic checks.
const live = process.env.ENGRAM_TEST_RERANK_URL;
describe.skipIf(!live)(
  `a real rerank server${live ? "" : " — SKIPPED: ENGRAM_TEST_RERANK_URL is not set"}`,
  () => {
    describeRerankerConformance(
      "http (ENGRAM_TEST_RERANK_URL)",
      async () => ({
        reranker: httpReranker({
          baseUrl: live as string,
          ...(process.env.ENGRAM_TEST_RERANK_API === "tei" ? { api: "tei" as const } : {}),
          ...(process.env.ENGRAM_TEST_RERANK_MODEL
            ? { model: process.env.ENGRAM_TEST_RERANK_MODEL }
            : {}),
        }),
      }),
      { semantic: true },
    );
  },
);
