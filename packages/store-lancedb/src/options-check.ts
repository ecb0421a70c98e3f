import { EngramError } from "@engram/core/driver";
import { parseLocation } from "./location.js";
import {
  DEFAULT_FULLTEXT_STALE_FRACTION,
  DEFAULT_VECTOR_INDEX_MIN_ROWS,
  DEFAULT_VERSION_RETENTION_MS,
  type LanceDbStoreOptions,
} from "./options.js";

/** Default {@link LanceDbStoreOptions.readConsistencySeconds} for object storage. */
const REMOTE_READ_CONSISTENCY_SECONDS = 5;

/** {@link LanceDbStoreOptions} with every default applied. */
export interface ResolvedOptions {
  uri: string;
  storageOptions: Record<string, string>;
  readConsistencySeconds: number;
  vectorIndexMinRows: number;
  fulltextStaleFraction: number;
  versionRetentionMs: number;
}

/**
 * Check `options` and apply the defaults.
 * @throws EngramError `CONFIG_INVALID` naming the option and the values it takes.
 */
export function resolveOptions(options: LanceDbStoreOptions): ResolvedOptions {
  const { uri } = options;
  if (typeof uri !== "string" || uri.trim() === "") {
    throw invalid("uri", uri, "a folder path or a URI such as s3://bucket/prefix");
  }
  const storageOptions = options.storageOptions ?? {};
  for (const [key, value] of Object.entries(storageOptions)) {
    if (typeof value !== "string") {
      throw invalid(
        `storageOptions.${key}`,
        value,
        "a string (LanceDB takes every setting as text)",
      );
    }
  }
  const remote = parseLocation(uri).kind === "remote";
  const readConsistencySeconds = number(
    "readConsistencySeconds",
    options.readConsistencySeconds,
    remote ? REMOTE_READ_CONSISTENCY_SECONDS : 0,
    { min: 0 },
  );
  return {
    uri,
    storageOptions,
    readConsistencySeconds,
    vectorIndexMinRows: number(
      "vectorIndexMinRows",
      options.vectorIndexMinRows,
      DEFAULT_VECTOR_INDEX_MIN_ROWS,
      { min: 1, infinite: true },
    ),
    fulltextStaleFraction: number(
      "fulltextStaleFraction",
      options.fulltextStaleFraction,
      DEFAULT_FULLTEXT_STALE_FRACTION,
      { min: 0 },
    ),
    versionRetentionMs: number(
      "versionRetentionMs",
      options.versionRetentionMs,
      // A reader may use a snapshot this old: keep what it reads until it looks again.
      Math.max(DEFAULT_VERSION_RETENTION_MS, readConsistencySeconds * 1000),
      { min: 0 },
    ),
  };
}

function number(
  name: string,
  value: number | undefined,
  fallback: number,
  rules: { min: number; infinite?: boolean },
): number {
  if (value === undefined) return fallback;
  const finiteOk = Number.isFinite(value) || (rules.infinite === true && value === Infinity);
  if (typeof value !== "number" || !finiteOk || value < rules.min) {
    throw invalid(name, value, `a number ≥ ${rules.min}${rules.infinite ? " (or Infinity)" : ""}`);
  }
  return value;
}

function invalid(name: string, value: unknown, expected: string): EngramError {
  return new EngramError(
    "CONFIG_INVALID",
    `LanceDB store option ${name} is ${JSON.stringify(value) ?? String(value)}; it must be ${expected}.`,
    { hint: `Fix ${name} where the store is created (lancedbStore({ … }) or createLanceDbStore).` },
  );
}
