import { createHash } from "node:crypto";
import { EngramError } from "../errors.js";
import type { EmbeddingCacheStore } from "../store/store.js";
import { estimateTokens } from "../text/tokens.js";
import type { Embedder } from "./embedder.js";
import { describeEmbedding, embeddingIdentity } from "./identity.js";

/** A text to embed, with the sha256 of its content (the cache key's last part). */
export interface EmbedInput {
  text: string;
  hash: string;
}

/** What embedding a set of texts cost. */
export interface EmbedStats {
  cacheHits: number;
  embedded: number;
  requests: number;
  /** Estimated tokens sent to the provider. */
  tokens: number;
}

/**
 * The cache key of a text for an embedder: (provider, model, endpoint, dims, text hash). Vectors
 * of another model or endpoint can never be served from the cache.
 */
export function embeddingCacheKey(embedder: Embedder, textHash: string): string {
  return createHash("sha256")
    .update(describeEmbedding(embeddingIdentity(embedder)))
    .update("\n")
    .update(textHash)
    .digest("hex");
}

/**
 * Embed `inputs`, cache first: cached vectors are reused, the rest are sent in batches bounded by
 * the embedder's `maxBatchSize` and `maxTokensPerRequest`, and stored in the cache.
 */
export async function embedTexts(
  inputs: readonly EmbedInput[],
  embedder: Embedder,
  options: { cache?: EmbeddingCacheStore | undefined; signal?: AbortSignal | undefined } = {},
): Promise<{ vectors: Float32Array[]; stats: EmbedStats }> {
  const stats: EmbedStats = { cacheHits: 0, embedded: 0, requests: 0, tokens: 0 };
  const keys = inputs.map((input) => embeddingCacheKey(embedder, input.hash));
  const cached = options.cache ? await options.cache.get([...new Set(keys)]) : new Map();
  const vectors: Array<Float32Array | undefined> = keys.map((key) => cached.get(key));
  stats.cacheHits = vectors.filter(Boolean).length;

  // Identical texts are embedded once.
  const todo = new Map<string, number[]>();
  keys.forEach((key, i) => {
    if (vectors[i]) return;
    const at = todo.get(key);
    if (at) at.push(i);
    else todo.set(key, [i]);
  });

  const fresh: Array<readonly [string, Float32Array]> = [];
  for (const batch of batches([...todo.entries()], inputs, embedder)) {
    options.signal?.throwIfAborted();
    const texts = batch.map(([, at]) => inputs[at[0] as number]?.text ?? "");
    const out = await embedder.embedBatch(texts, options.signal);
    checkVectors(out, texts.length, embedder);
    stats.requests++;
    stats.embedded += texts.length;
    stats.tokens += texts.reduce((sum, text) => sum + estimateTokens(text), 0);
    batch.forEach(([key, at], j) => {
      const vector = out[j] as Float32Array;
      for (const i of at) vectors[i] = vector;
      fresh.push([key, vector]);
    });
  }
  if (options.cache && fresh.length) await options.cache.set(fresh);
  return { vectors: vectors as Float32Array[], stats };
}

function* batches<T extends [string, number[]]>(
  items: T[],
  inputs: readonly EmbedInput[],
  embedder: Embedder,
): Generator<T[]> {
  const maxItems = Math.max(1, embedder.maxBatchSize);
  const maxTokens = embedder.maxTokensPerRequest ?? Number.POSITIVE_INFINITY;
  let batch: T[] = [];
  let tokens = 0;
  for (const item of items) {
    const cost = estimateTokens(inputs[item[1][0] as number]?.text ?? "");
    if (batch.length && (batch.length >= maxItems || tokens + cost > maxTokens)) {
      yield batch;
      batch = [];
      tokens = 0;
    }
    batch.push(item);
    tokens += cost;
  }
  if (batch.length) yield batch;
}

function checkVectors(out: readonly Float32Array[], expected: number, embedder: Embedder): void {
  const bad =
    out.length !== expected
      ? `returned ${out.length} vectors for ${expected} texts`
      : out.find((v) => v.length !== embedder.dims)
        ? `returned a vector whose size is not ${embedder.dims}`
        : undefined;
  if (bad) {
    throw new EngramError(
      "EMBEDDING_FAILED",
      `embedding provider ${embedder.id}/${embedder.model} ${bad}`,
      {
        hint: "check the provider's model and dimensions settings",
      },
    );
  }
}
