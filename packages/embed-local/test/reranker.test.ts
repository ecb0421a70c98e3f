import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selectReranker } from "@engram/core";
import { isEmbeddingError, isEngramError } from "@engram/core/driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localReranker, localRerankerProvider } from "../src/index.js";
import { writeTinyBertGguf } from "./fixtures/tiny-bert-gguf.js";

const QUERY = "rollback plan for the deploy";
const DOCS = [
  "the rollback plan",
  "lunch at noon",
  "deploy to staging then production",
  "用户偏好",
];

/**
 * A real node-llama-cpp ranking context over a tiny reranker the test generates (random weights:
 * the scores mean nothing, but they are llama.cpp's rank pooling and classifier head at work).
 */
describe("localReranker (node-llama-cpp ranking context, tiny generated GGUF)", () => {
  let dir: string;
  let rankerPath: string;
  let embedderPath: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-reranker-"));
    rankerPath = await writeTinyBertGguf(dir, { ranking: true, fileName: "tiny-reranker.gguf" });
    embedderPath = await writeTinyBertGguf(dir, { fileName: "tiny-embedder.gguf" });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // Count, order, independence from neighbours, determinism, empty lists: the conformance kit.
  it("scores in [0, 1], loading the model on first use; CLOSED after close", async () => {
    const reranker = await localReranker({ modelPath: rankerPath, gpu: "cpu", threads: 1 });
    try {
      expect(reranker.loaded).toBe(false);
      expect(reranker).toMatchObject({ id: "local", model: "tiny-reranker.gguf" });
      const scores = await reranker.rerank(QUERY, DOCS);
      expect(reranker.loaded).toBe(true);
      for (const s of scores) expect(s).toBeGreaterThanOrEqual(0);
      for (const s of scores) expect(s).toBeLessThanOrEqual(1);
      expect(new Set(scores).size).toBe(DOCS.length);
    } finally {
      await reranker.close();
    }
    await expect(reranker.rerank(QUERY, DOCS)).rejects.toSatisfy(
      (e) => isEngramError(e) && e.code === "CLOSED",
    );
  });

  it("refuses an embedding model without a ranking head, naming the fix", async () => {
    const reranker = await localReranker({ modelPath: embedderPath, gpu: "cpu", threads: 1 });
    try {
      const error = await reranker.rerank(QUERY, DOCS).catch((e: unknown) => e);
      expect(isEmbeddingError(error)).toBe(true);
      expect(String((error as Error).message)).toContain("not a reranking model");
    } finally {
      await reranker.close();
    }
    await expect(localReranker({ modelPath: join(dir, "missing.gguf") })).rejects.toThrow();
  });

  it("is chosen from the config with ENGRAM_RERANK_LOCAL_MODEL_PATH", async () => {
    const registry = { local: async () => localRerankerProvider };
    const reranker = await selectReranker(
      { provider: "local", providers: { local: { gpu: "cpu", threads: 1 } } },
      registry,
      {
        ENGRAM_RERANK_LOCAL_MODEL_PATH: rankerPath,
      },
    );
    try {
      expect(reranker?.model).toBe("tiny-reranker.gguf");
      expect(await reranker?.rerank(QUERY, DOCS)).toHaveLength(DOCS.length);
    } finally {
      await reranker?.close?.();
    }
    await expect(
      selectReranker({ provider: "local", providers: {} }, registry, {
        ENGRAM_RERANK_LOCAL_MODEL_PATH: join(dir, "missing.gguf"),
      }),
    ).rejects.toThrow(/reranker "local" cannot run: model file not found/);
  });
});
