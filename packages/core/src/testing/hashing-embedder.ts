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
 * A term's signed bucket: FNV-1a over its UTF-16 code units, mixed by MurmurHash3's finaliser;
 * bit 0 gives the sign, the rest the bucket (1-based, so that the sign survives). Pure
 * arithmetic: no digest object, no cache, so the embedder allocates nothing but its vectors and
 * the analyser's terms (`bench perf` counts its garbage in the store's peak RSS).
 */
function signedBucket(term: string, dims: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  const bucket = ((h >>> 1) % dims) + 1;
  return h & 1 ? bucket : -bucket;
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
      const signed = signedBucket(term, dims);
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
    async embedQuery(text, signal) {
      signal?.throwIfAborted();
      counters.queryCalls++;
      return embed(text);
    },
    async embedBatch(texts, signal) {
      signal?.throwIfAborted();
      counters.batchCalls++;
      counters.textsEmbedded += texts.length;
      return texts.map(embed);
    },
  };
}
