import { DEFAULT_RETRY, parseStoreOptions } from "@engram/core/driver";
import * as v from "valibot";

/**
 * The store's options, declared once: the schema below checks them (core's `parseStoreOptions`
 * turns its first complaint into `CONFIG_INVALID`), fills in the defaults and gives the option
 * types. Each message completes "it must be …".
 */

/** Default server URL: a local Qdrant as started by `docker run -p 6333:6333 qdrant/qdrant`. */
export const DEFAULT_URL = "http://localhost:6333";
/** Default points per upsert request. */
export const DEFAULT_BATCH_SIZE = 256;
/** Default request timeout in ms. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Default BM25 parameters. `avgTerms` 256 is the value Qdrant's own BM25 model uses; engram's
 * chunks of ~400 tokens hold a few hundred analysed terms (English words, or CJK unigrams plus
 * bigrams), so it sits in the right range.
 */
export const DEFAULT_BM25: Readonly<Record<"k1" | "b" | "avgTerms", number>> = Object.freeze({
  k1: 1.2,
  b: 0.75,
  avgTerms: 256,
});

const wholeNumber = (min: number, fallback: number) => {
  const expected = `a whole number ≥ ${min}`;
  return v.optional(
    v.pipe(v.number(expected), v.integer(expected), v.minValue(min, expected)),
    fallback,
  );
};

const finite = (ok: (n: number) => boolean, expected: string, fallback: number) =>
  v.optional(v.pipe(v.number(expected), v.finite(expected), v.check(ok, expected)), fallback);

/** A strict object: an unknown key is refused, not silently ignored (a typo in the config). */
const strict = <E extends v.ObjectEntries>(entries: E) =>
  v.strictObject(entries, (issue) =>
    issue.expected === "never" ? "left out: the Qdrant store has no such option" : "an object",
  );

/** BM25 parameters used to weight a chunk's terms (see `sparse.ts`). */
const bm25 = strict({
  /** Term-frequency saturation (default 1.2, as SQLite FTS5 and Lucene). */
  k1: finite((n) => n >= 0, "a number ≥ 0", DEFAULT_BM25.k1),
  /** Length normalisation, 0 (none) to 1 (full) (default 0.75). */
  b: finite((n) => n >= 0 && n <= 1, "a number from 0 to 1", DEFAULT_BM25.b),
  /**
   * The average chunk length, in analysed terms, that lengths are normalised against. Fixed, not
   * measured: Qdrant cannot compute it, and a running mean would weight chunks written at
   * different times differently.
   */
  avgTerms: finite((n) => n > 0, "a number > 0", DEFAULT_BM25.avgTerms),
});

/** BM25 parameters used to weight a chunk's terms (see `sparse.ts`). */
export type Bm25Params = v.InferOutput<typeof bm25>;

const URL_EXPECTED = "an http(s) URL such as http://localhost:6333";
const COLLECTION_EXPECTED = 'a Qdrant collection name: 1 to 200 letters, digits, "_" or "-"';

const entries = {
  /** Qdrant's REST URL. Default `$QDRANT_URL`, else {@link DEFAULT_URL}. */
  url: v.optional(
    v.pipe(
      v.string(URL_EXPECTED),
      v.trim(),
      v.regex(/^https?:\/\/[^/\s]+/i, URL_EXPECTED),
      v.transform((url) => url.replace(/\/+$/, "")),
    ),
  ),
  /** API key (Qdrant Cloud or a server with `service.api_key`). Default `$QDRANT_API_KEY`. */
  apiKey: v.optional(
    v.pipe(
      v.string("a non-empty string (or leave it out)"),
      v.check((key) => key.trim() !== "", "a non-empty string (or leave it out)"),
    ),
  ),
  /**
   * Name of the chunk collection; file records, meta and the key-value map live in
   * `<collection>_records`. Letters, digits, `_` and `-` only (safe in a URL on every version).
   */
  collection: v.pipe(
    v.string(COLLECTION_EXPECTED),
    v.regex(/^[A-Za-z0-9_-]{1,200}$/, COLLECTION_EXPECTED),
  ),
  /** Points per upsert request (default {@link DEFAULT_BATCH_SIZE}). */
  batchSize: wholeNumber(1, DEFAULT_BATCH_SIZE),
  /** Per-request timeout in ms (default {@link DEFAULT_TIMEOUT_MS}). */
  timeoutMs: wholeNumber(1, DEFAULT_TIMEOUT_MS),
  /** How failed requests (429, 5xx, timeouts, network) are retried; core's defaults otherwise. */
  retry: v.optional(
    strict({
      retries: wholeNumber(0, DEFAULT_RETRY.retries),
      minDelayMs: wholeNumber(0, DEFAULT_RETRY.minDelayMs),
      maxDelayMs: wholeNumber(0, DEFAULT_RETRY.maxDelayMs),
      maxRetryAfterMs: wholeNumber(0, DEFAULT_RETRY.maxRetryAfterMs),
    }),
    {},
  ),
  /**
   * Search vectors exactly (every vector compared) instead of through Qdrant's HNSW index.
   * Default false: Qdrant scans small collections exactly anyway and uses HNSW once it has built it.
   */
  exactVectorSearch: v.optional(v.boolean("true or false"), false),
  /** BM25 weighting of chunk terms. Fixed for the life of a collection (recorded in its meta). */
  bm25: v.optional(bm25, {}),
};

const storeOptions = strict(entries);
const factoryOptions = strict({
  ...entries,
  /** Collection name. Default `engram_<8 hex digits>` from the workspace's absolute path. */
  collection: v.optional(entries.collection),
});

/** Options of `createQdrantStore`. */
export type QdrantStoreOptions = v.InferInput<typeof storeOptions>;

/**
 * Options of `qdrantStore`, the factory core uses: `collection` defaults to `engram_<8 hex
 * digits>` from the workspace's absolute path, so every workspace gets its own collection.
 */
export type QdrantStoreFactoryOptions = v.InferInput<typeof factoryOptions>;

/** {@link QdrantStoreOptions} with the environment and every default applied. */
export type ResolvedOptions = v.InferOutput<typeof storeOptions> & { url: string };

/** The environment variables the store reads. */
export type QdrantEnv = Partial<Record<"QDRANT_URL" | "QDRANT_API_KEY", string | undefined>>;

/**
 * Check `options`, fill gaps from `env` (`QDRANT_URL`, `QDRANT_API_KEY`) and the defaults.
 * Explicit options win over the environment.
 * @throws EngramError `CONFIG_INVALID` naming the option and the values it takes.
 */
export function resolveOptions(options: QdrantStoreOptions, env: QdrantEnv = {}): ResolvedOptions {
  const fromEnv = (value: string | undefined) => (value?.trim() ? value : undefined);
  return parseStoreOptions("qdrant", storeOptions, {
    ...options,
    url: options.url ?? fromEnv(env.QDRANT_URL) ?? DEFAULT_URL,
    apiKey: options.apiKey ?? fromEnv(env.QDRANT_API_KEY),
  }) as ResolvedOptions;
}

/**
 * Check the factory's options up front (a bad `store.options` fails when the config is read, not
 * at the first sync). @throws EngramError `CONFIG_INVALID`.
 */
export function checkFactoryOptions(options: QdrantStoreFactoryOptions): void {
  parseStoreOptions("qdrant", factoryOptions, options);
}
