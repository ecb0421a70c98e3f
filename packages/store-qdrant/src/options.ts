import type { RetryPolicy } from "@engram/core/driver";

/** BM25 parameters used to weight a chunk's terms (see `sparse.ts`). */
export interface Bm25Params {
  /** Term-frequency saturation (default 1.2, as SQLite FTS5 and Lucene). */
  k1: number;
  /** Length normalisation, 0 (none) to 1 (full) (default 0.75). */
  b: number;
  /**
   * The average chunk length, in analysed terms, that lengths are normalised against. Fixed, not
   * measured: Qdrant cannot compute it, and a running mean would weight chunks written at different
   * times differently. Default {@link DEFAULT_BM25}`.avgTerms`.
   */
  avgTerms: number;
}

/**
 * Default BM25 parameters. `avgTerms` 256 is the value Qdrant's own BM25 model uses; engram's
 * chunks of ~400 tokens hold a few hundred analysed terms (English words, or CJK unigrams plus
 * bigrams), so it sits in the right range.
 */
export const DEFAULT_BM25: Readonly<Bm25Params> = Object.freeze({
  k1: 1.2,
  b: 0.75,
  avgTerms: 256,
});

/** Default server URL: a local Qdrant as started by `docker run -p 6333:6333 qdrant/qdrant`. */
export const DEFAULT_URL = "http://localhost:6333";

/** Default points per upsert request. */
export const DEFAULT_BATCH_SIZE = 256;

/** Default request timeout in ms. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Options of {@link createQdrantStore}. */
export interface QdrantStoreOptions {
  /** Qdrant's REST URL. Default `$QDRANT_URL`, else {@link DEFAULT_URL}. */
  url?: string;
  /** API key (Qdrant Cloud or a server with `service.api_key`). Default `$QDRANT_API_KEY`. */
  apiKey?: string;
  /**
   * Name of the chunk collection; file records, meta and the embedding cache live in
   * `<collection>_records`. Letters, digits, `_` and `-` only.
   */
  collection: string;
  /** Points per upsert request (default {@link DEFAULT_BATCH_SIZE}). */
  batchSize?: number;
  /** Per-request timeout in ms (default {@link DEFAULT_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** How failed requests (429, 5xx, timeouts, network) are retried; core's defaults otherwise. */
  retry?: Partial<RetryPolicy>;
  /**
   * Search vectors exactly (every vector compared) instead of through Qdrant's HNSW index.
   * Default false: Qdrant scans small collections exactly anyway and uses HNSW once it has built it.
   */
  exactVectorSearch?: boolean;
  /** BM25 weighting of chunk terms. Fixed for the life of a collection (recorded in its meta). */
  bm25?: Partial<Bm25Params>;
}

/** Options of {@link qdrantStore}, the factory core uses. */
export interface QdrantStoreFactoryOptions extends Omit<QdrantStoreOptions, "collection"> {
  /**
   * Collection name. Default `engram_<8 hex digits>` from the workspace's absolute path, so every
   * workspace gets its own collection on a shared server.
   */
  collection?: string;
}
