// The Reranker contract's checks live in the kit (@engram/core/testing): this file runs them on
// node-llama-cpp's ranking context over a tiny reranker the test generates (random weights: scores
// without meaning, but llama.cpp's rank pooling and classifier head at work), loaded once.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeRerankerConformance } from "@engram/core/testing";
import { describe } from "vitest";
import { localReranker } from "../src/index.js";
import { writeTinyBertGguf } from "./fixtures/tiny-bert-gguf.js";

describeRerankerConformance("local, tiny generated reranker", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-local-rerank-conformance-"));
  const modelPath = await writeTinyBertGguf(dir, {
    ranking: true,
    fileName: "tiny-reranker.gguf",
  });
  return {
    reranker: await localReranker({ modelPath, gpu: "cpu", threads: 1 }), // see helpers.ts
    close: () => rm(dir, { recursive: true, force: true }),
  };
});

// A real GGUF reranker (bge-reranker, jina-reranker) adds the semantic checks.
const realModel = process.env.ENGRAM_TEST_RERANK_GGUF;
describe.skipIf(!realModel)(
  `a real GGUF reranker${realModel ? "" : " — SKIPPED: ENGRAM_TEST_RERANK_GGUF is not set"}`,
  () => {
    describeRerankerConformance(
      "local (ENGRAM_TEST_RERANK_GGUF)",
      async () => ({ reranker: await localReranker({ modelPath: realModel as string }) }),
      { semantic: true },
    );
  },
);
