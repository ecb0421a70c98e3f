import { describe, expect, it } from "vitest";
import { localEmbedder } from "../src/index.js";
import { cosine, norm } from "./helpers.js";

const realModel = process.env.ENGRAM_TEST_GGUF;

describe("a real GGUF embedding model", () => {
  it.skipIf(!realModel)(
    "embeds with the model named by ENGRAM_TEST_GGUF (skipped: ENGRAM_TEST_GGUF is not set)",
    async () => {
      const embedder = await localEmbedder({ modelPath: realModel as string });
      try {
        expect(embedder.dims).toBeGreaterThan(0);
        const [cat, kitten, revenue, zh1, zh2] = await embedder.embedBatch([
          "The cat sits on the mat.",
          "A kitten is sitting on a rug.",
          "Quarterly revenue grew by five percent.",
          "用户喜欢深色模式",
          "用户偏好暗色主题",
        ]);
        for (const v of [cat, kitten, revenue, zh1, zh2]) {
          expect(v).toHaveLength(embedder.dims);
          expect(norm(v as Float32Array)).toBeCloseTo(1, 4);
        }
        const related = cosine(cat as Float32Array, kitten as Float32Array);
        const unrelated = cosine(cat as Float32Array, revenue as Float32Array);
        expect(related).toBeGreaterThan(unrelated);
        expect(await embedder.embedQuery("The cat sits on the mat.")).toEqual(cat);
      } finally {
        await embedder.close();
      }
    },
    120_000,
  );
});
