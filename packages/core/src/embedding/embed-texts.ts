import { createHash } from "node:crypto";
import { EngramError } from "../errors.js";
import type { EmbeddingCacheStore } from "../store/store.js";
import { estimateTokens } from "../text/tokens.js";
import type { Embedder } from "./embedder.js";
import { describeEmbedding, type EmbeddingIdentity, embeddingIdentity } from "./identity.js";
import { checkVectors } from "./vectors.js";

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
  return cacheKeyOf(embeddingIdentity(embedder), textHash);
}

/** The cache key of a text for vectors of `identity` (see {@link embeddingCacheKey}). */
export function cacheKeyOf(identity: EmbeddingIdentity, textHash: string): string {
  return createHash("sha256")
    .update(describeEmbedding(identity))
    .update("\n")
    .update(textHash)
    .digest("hex");
}

/** A token allowance shared by the embedding calls of one sync (the cost guard). */
export interface TokenBudget {
  /** Estimated tokens that may still be sent. */
  remaining: number;
}

/**
 * Embed `inputs`, cache first: cached vectors are reused, the rest are sent in batches bounded by
 * the embedder's `maxBatchSize` and `maxTokensPerRequest`, up to `maxConcurrency` at a time, and
 * each batch's vectors are cached as soon as they arrive, so work done before a failure is never
 * paid for twice. With a `budget`, a batch that would exceed it is not sent: the call fails with
 * `EMBEDDING_BUDGET` and the budget is left as it was.
 */
export async function embedTexts(
  inputs: readonly EmbedInput[],
  embedder: Embedder,
  options: {
    cache?: EmbeddingCacheStore | undefined;
    signal?: AbortSignal | undefined;
    budget?: TokenBudget | undefined;
    /** Counters to add to (default: fresh ones, returned). */
    stats?: EmbedStats | undefined;
  } = {},
): Promise<{ vectors: Float32Array[]; stats: EmbedStats }> {
  const stats: EmbedStats = options.stats ?? { cacheHits: 0, embedded: 0, requests: 0, tokens: 0 };
  const keys = inputs.map((input) => embeddingCacheKey(embedder, input.hash));
  const cached = options.cache ? await options.cache.get([...new Set(keys)]) : new Map();
  const vectors: Array<Float32Array | undefined> = keys.map((key) => cached.get(key));
  stats.cacheHits += vectors.filter(Boolean).length;

  // Identical texts are embedded once.
  const todo = new Map<string, number[]>();
  keys.forEach((key, i) => {
    if (vectors[i]) return;
    const at = todo.get(key);
    if (at) at.push(i);
    else todo.set(key, [i]);
  });

  const queue = [...batches([...todo.entries()], inputs, embedder)];
  let failed: unknown;
  const worker = async () => {
    for (let batch = queue.shift(); batch && failed === undefined; batch = queue.shift()) {
      options.signal?.throwIfAborted();
      const texts = batch.map(([, at]) => inputs[at[0] as number]?.text ?? "");
      const tokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
      if (options.budget) {
        if (tokens > options.budget.remaining) {
          throw new EngramError(
            "EMBEDDING_BUDGET",
            `the sync's embedding budget is spent (${options.budget.remaining} tokens left, the next request needs ${tokens})`,
            {
              hint: "the rest is embedded by the next sync; raise embedding.maxTokensPerSync to do more at once",
            },
          );
        }
        options.budget.remaining -= tokens;
      }
      let out: Float32Array[];
      try {
        out = await embedder.embedBatch(texts, options.signal);
      } catch (error) {
        if (options.budget) options.budget.remaining += tokens;
        throw error;
      }
      checkVectors(out, texts.length, embedder);
      stats.requests++;
      stats.embedded += texts.length;
      stats.tokens += tokens;
      const fresh = batch.map(([key, at], j) => {
        const vector = out[j] as Float32Array;
        for (const i of at) vectors[i] = vector;
        return [key, vector] as const;
      });
      if (options.cache) await options.cache.set(fresh);
    }
  };
  const lanes = Math.max(1, Math.min(embedder.maxConcurrency ?? 1, queue.length));
  await Promise.all(
    Array.from({ length: lanes }, () =>
      worker().catch((error) => {
        failed ??= error;
      }),
    ),
  );
  if (failed !== undefined) throw failed;
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
