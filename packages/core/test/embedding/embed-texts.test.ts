import { describe, expect, it } from "vitest";
import { embedTexts } from "../../src/embedding/embed-texts.js";
import type { Embedder } from "../../src/embedding/embedder.js";
import { createHashingEmbedder } from "../../src/testing/hashing-embedder.js";

const input = (text: string) => ({ text, hash: text });

describe("embedTexts", () => {
  it("batches by maxBatchSize and embeds identical texts once", async () => {
    const embedder = createHashingEmbedder({ dims: 16 });
    const texts = [...Array.from({ length: 130 }, (_, i) => `note ${i}`), "note 1", "note 2"];
    const { vectors, stats } = await embedTexts(texts.map(input), embedder);
    expect(vectors).toHaveLength(132);
    expect(vectors[130]).toEqual(vectors[1]);
    expect(embedder.textsEmbedded).toBe(130);
    expect(embedder.batchCalls).toBe(Math.ceil(130 / embedder.maxBatchSize));
    expect(stats).toMatchObject({ embedded: 130, requests: 3, cacheHits: 0 });
  });

  it("bounds requests by estimated tokens", async () => {
    const inner = createHashingEmbedder({ dims: 8 });
    const embedder: Embedder = {
      ...inner,
      embedQuery: inner.embedQuery,
      embedBatch: inner.embedBatch,
      maxTokensPerRequest: 100,
    };
    const long = "word ".repeat(60); // ≈ 75 tokens each
    const { stats } = await embedTexts(
      [input(`${long}1`), input(`${long}2`), input(`${long}3`)],
      embedder,
    );
    expect(stats.requests).toBe(3);
  });

  it("rejects a provider that returns the wrong number or size of vectors", async () => {
    const inner = createHashingEmbedder({ dims: 8 });
    const short: Embedder = {
      ...inner,
      embedQuery: inner.embedQuery,
      embedBatch: async (t) => (await inner.embedBatch(t)).slice(1),
    };
    await expect(embedTexts([input("a"), input("b")], short)).rejects.toMatchObject({
      code: "EMBEDDING_FAILED",
    });
    const wrongDims: Embedder = {
      ...inner,
      dims: 9,
      embedQuery: inner.embedQuery,
      embedBatch: inner.embedBatch,
    };
    await expect(embedTexts([input("a")], wrongDims)).rejects.toMatchObject({
      code: "EMBEDDING_FAILED",
    });
  });
});
