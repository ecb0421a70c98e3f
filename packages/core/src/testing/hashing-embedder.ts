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

/** Terms whose bucket an embedder remembers before it starts over. */
const MAX_REMEMBERED_TERMS = 50_000;

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
  // Each term's signed bucket, remembered: a SHA-1 per term occurrence made ~30 KB of garbage
  // per chunk, which the peak RSS `bench perf` reports for the store would otherwise include.
  const buckets = new Map<string, number>();
  const signedBucket = (term: string): number => {
    let signed = buckets.get(term);
    if (signed === undefined) {
      const digest = createHash("sha1").update(term).digest();
      const bucket = digest.readUInt32LE(0) % dims;
      signed = (digest[4] ?? 0) & 1 ? bucket + 1 : -(bucket + 1);
      if (buckets.size >= MAX_REMEMBERED_TERMS) buckets.clear();
      buckets.set(term, signed);
    }
    return signed;
  };
  const embed = (text: string): Float32Array => {
    const vector = new Float32Array(dims);
    for (const term of analyzer.terms(text)) {
      const signed = signedBucket(term);
      const bucket = Math.abs(signed) - 1;
      vector[bucket] = (vector[bucket] ?? 0) + Math.sign(signed);
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
