import { createHash } from "node:crypto";
import type { Embedder } from "../embedding/embedder.js";
import { createAnalyzer } from "../text/analyzer.js";

/** A {@link createHashingEmbedder} embedder, with counters for asserting how often it was called. */
export interface HashingEmbedder extends Embedder {
  /** `embedBatch` calls so far. */
  readonly batchCalls: number;
  /** `embedQuery` calls so far. */
  readonly queryCalls: number;
  /** Texts embedded through `embedBatch` so far. */
  readonly textsEmbedded: number;
}

/**
 * A deterministic, dependency-free embedder for tests and examples: feature hashing of analysed
 * terms into `dims` signed buckets, L2-normalised. Texts sharing terms get similar vectors, so
 * vector search behaves sensibly, but it is lexical, not semantic — use a real provider for
 * meaning. It runs in-process, so it proves the vector path (sqlite-vec, fusion, caching) without
 * a network or a model file.
 */
export function createHashingEmbedder(
  options: { dims?: number; model?: string } = {},
): HashingEmbedder {
  const dims = options.dims ?? 64;
  const analyzer = createAnalyzer();
  const counters = { batchCalls: 0, queryCalls: 0, textsEmbedded: 0 };
  const embed = (text: string): Float32Array => {
    const vector = new Float32Array(dims);
    for (const term of analyzer.terms(text)) {
      const digest = createHash("sha1").update(term).digest();
      const bucket = digest.readUInt32LE(0) % dims;
      vector[bucket] = (vector[bucket] ?? 0) + ((digest[4] ?? 0) & 1 ? 1 : -1);
    }
    let norm = 0;
    for (const x of vector) norm += x * x;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < dims; i++) vector[i] = (vector[i] ?? 0) / norm;
    return vector;
  };
  return {
    id: "hashing",
    model: options.model ?? `hashing-${dims}`,
    dims,
    maxBatchSize: 64,
    get batchCalls() {
      return counters.batchCalls;
    },
    get queryCalls() {
      return counters.queryCalls;
    },
    get textsEmbedded() {
      return counters.textsEmbedded;
    },
    async embedQuery(text) {
      counters.queryCalls++;
      return embed(text);
    },
    async embedBatch(texts) {
      counters.batchCalls++;
      counters.textsEmbedded += texts.length;
      return texts.map(embed);
    },
  };
}
