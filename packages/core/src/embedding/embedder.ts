import type { EmbeddingError } from "./errors.js";

/**
 * The embedding contract. A provider turns text into fixed-size vectors; core batches, caches,
 * retries and falls back around it. Providers make one attempt per call (no retries of their own)
 * and throw {@link EmbeddingError}s, so core can tell a retryable failure from a final one.
 */
export interface Embedder {
  /** Provider id, e.g. `openai`, `gemini`, `local`. Part of the index identity. */
  readonly id: string;
  /** Model name. Part of the index identity. */
  readonly model: string;
  /** Vector size. Part of the index identity. */
  readonly dims: number;
  /**
   * Where the model runs (base URL, model file path): vectors from different endpoints are never
   * mixed. Part of the index identity; never include secrets.
   */
  readonly endpoint?: string;
  /** Most texts per `embedBatch` call. */
  readonly maxBatchSize: number;
  /** Most estimated tokens per `embedBatch` call, if the provider has such a limit. */
  readonly maxTokensPerRequest?: number;
  /** Most `embedBatch` calls in flight at once (default 1). */
  readonly maxConcurrency?: number;

  /** Embed a search query (providers with task types use the query type). */
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
  /** Embed documents, one vector per text, in order. */
  embedBatch(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Release resources (models, sockets). Optional. */
  close?(): Promise<void>;
}
