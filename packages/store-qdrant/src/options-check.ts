import { DEFAULT_RETRY, EngramError, type RetryPolicy } from "@engram/core/driver";
import { assertCollectionName } from "./naming.js";
import {
  type Bm25Params,
  DEFAULT_BATCH_SIZE,
  DEFAULT_BM25,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_URL,
  type QdrantStoreOptions,
} from "./options.js";

/** {@link QdrantStoreOptions} with the environment and every default applied. */
export interface ResolvedOptions {
  url: string;
  apiKey: string | undefined;
  collection: string;
  batchSize: number;
  timeoutMs: number;
  retry: RetryPolicy;
  exactVectorSearch: boolean;
  bm25: Bm25Params;
}

/** The environment variables the store reads. */
export type QdrantEnv = Partial<Record<"QDRANT_URL" | "QDRANT_API_KEY", string | undefined>>;

/**
 * Check `options`, fill gaps from `env` (`QDRANT_URL`, `QDRANT_API_KEY`) and the defaults.
 * Explicit options win over the environment.
 * @throws EngramError `CONFIG_INVALID` naming the option and the values it takes.
 */
export function resolveOptions(options: QdrantStoreOptions, env: QdrantEnv = {}): ResolvedOptions {
  const rawUrl: unknown = options.url ?? nonEmpty(env.QDRANT_URL) ?? DEFAULT_URL;
  const url = typeof rawUrl === "string" ? rawUrl.trim() : "";
  if (!/^https?:\/\/[^/\s]+/i.test(url)) {
    throw invalid(
      "url",
      options.url ?? env.QDRANT_URL,
      "an http(s) URL such as http://localhost:6333",
    );
  }
  const apiKey = options.apiKey ?? nonEmpty(env.QDRANT_API_KEY);
  if (apiKey !== undefined && (typeof apiKey !== "string" || apiKey.trim() === "")) {
    throw invalid("apiKey", apiKey, "a non-empty string (or leave it out)");
  }
  assertCollectionName(options.collection);
  const bm25 = { ...DEFAULT_BM25, ...options.bm25 };
  return {
    url: url.replace(/\/+$/, ""),
    apiKey,
    collection: options.collection,
    batchSize: integer("batchSize", options.batchSize, DEFAULT_BATCH_SIZE, 1),
    timeoutMs: integer("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    retry: {
      retries: integer("retry.retries", options.retry?.retries, DEFAULT_RETRY.retries, 0),
      minDelayMs: integer(
        "retry.minDelayMs",
        options.retry?.minDelayMs,
        DEFAULT_RETRY.minDelayMs,
        0,
      ),
      maxDelayMs: integer(
        "retry.maxDelayMs",
        options.retry?.maxDelayMs,
        DEFAULT_RETRY.maxDelayMs,
        0,
      ),
      maxRetryAfterMs: integer(
        "retry.maxRetryAfterMs",
        options.retry?.maxRetryAfterMs,
        DEFAULT_RETRY.maxRetryAfterMs,
        0,
      ),
    },
    exactVectorSearch: boolean("exactVectorSearch", options.exactVectorSearch, false),
    bm25: {
      k1: number("bm25.k1", bm25.k1, (v) => v >= 0, "a number ≥ 0"),
      b: number("bm25.b", bm25.b, (v) => v >= 0 && v <= 1, "a number from 0 to 1"),
      avgTerms: number("bm25.avgTerms", bm25.avgTerms, (v) => v > 0, "a number > 0"),
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function boolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw invalid(name, value, "true or false");
  return value;
}

function integer(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw invalid(name, value, `a whole number ≥ ${min}`);
  }
  return value;
}

function number(
  name: string,
  value: unknown,
  ok: (value: number) => boolean,
  expected: string,
): number {
  if (typeof value !== "number" || !Number.isFinite(value) || !ok(value)) {
    throw invalid(name, value, expected);
  }
  return value;
}

/** A `CONFIG_INVALID` error for one Qdrant store option. */
export function invalid(name: string, value: unknown, expected: string): EngramError {
  return new EngramError(
    "CONFIG_INVALID",
    `Qdrant store option ${name} is ${JSON.stringify(value) ?? String(value)}; it must be ${expected}.`,
    {
      hint: `Fix ${name} in store.options of engram.config.json (or where qdrantStore({ … }) is called).`,
    },
  );
}
