import { fileURLToPath } from "node:url";
import { parseStoreOptions } from "@engram/core/driver";
import * as v from "valibot";

/** Options of {@link createLanceDbStore}. */
export interface LanceDbStoreOptions {
  /**
   * Where the database lives: a local folder (created if missing; `file://` URIs work too), or any
   * URI LanceDB accepts, such as `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix`
   * or `memory://name` (a private in-memory database that is gone when the process exits).
   */
  uri: string;
  /**
   * Object-storage settings passed through to LanceDB unchanged (credentials, region, endpoint,
   * timeouts, e.g. `{ region: "eu-west-1", aws_endpoint: "http://localhost:9000" }`). See
   * https://lancedb.com/docs/storage/ for the keys.
   */
  storageOptions?: Record<string, string>;
  /**
   * How stale a read may be, in seconds, before it checks for writes by other processes. 0 (the
   * default for local folders) checks on every read; object storage defaults to 5 s, because every
   * check is a request.
   */
  readConsistencySeconds?: number;
  /**
   * Search vectors through a quantised index (4-bit codes, the best candidates re-ranked by exact
   * distance) once the chunks table holds at least this many; below it, vector search is exact.
   * Default: as many as {@link DEFAULT_EXACT_VECTOR_BYTES} of float32 vectors hold (21,845 at 384
   * dimensions, 5,461 at 1,536). `Infinity` keeps search exact at any size.
   */
  vectorIndexMinRows?: number;
  /**
   * Rebuild the full-text index once the chunk rows inserted or deleted since it was last built
   * exceed this fraction of the table. Until then LanceDB scans the new rows next to the index,
   * and its BM25 statistics still count deleted rows, so scores drift by up to about this
   * fraction. 0 rebuilds after every write. Default {@link DEFAULT_FULLTEXT_STALE_FRACTION}.
   */
  fulltextStaleFraction?: number;
  /**
   * How long a table version is kept on disk once a newer one replaced it, in ms, for readers that
   * may still be using it (another process, or a snapshot up to `readConsistencySeconds` old).
   * Versions are pruned whenever the store optimizes a table. A read that loses its files anyway is
   * retried on the latest version. Default: `readConsistencySeconds` (0 for a local folder, 5 s on
   * object storage), so a reader's snapshot outlives its consistency window.
   */
  versionRetentionMs?: number;
  /**
   * The most chunks a long-lived process (`engram watch`, `mcp`, `ui`: core's `withMemoryIndex`)
   * copies into its memory to search from RAM; above it LanceDB's own indexes answer. Default
   * {@link DEFAULT_MEMORY_INDEX_MAX_CHUNKS}; 0 never copies, `Infinity` always does.
   */
  memoryIndexMaxChunks?: number;
}

/** Options of {@link lancedbStore}, the factory core uses. */
export interface LanceDbStoreFactoryOptions extends Omit<LanceDbStoreOptions, "uri"> {
  /**
   * Folder or URI of the database. A relative folder resolves against the workspace. Default
   * `<indexDir>/lancedb` (`<workspace>/.engram/lancedb`).
   */
  uri?: string;
}

/** Folder name of the database inside the workspace's index folder. */
export const DEFAULT_FOLDER_NAME = "lancedb";

/**
 * Bytes of vectors up to which search stays exact by default (see
 * {@link LanceDbStoreOptions.vectorIndexMinRows}): 32 MiB. An exact search scans every vector of
 * a flat index, which holds a second copy of them (the folder then keeps every vector twice) in
 * LanceDB's index cache; the quantised index keeps a seventh of that and scans faster once the
 * vectors are many (README: 3.4 ms a query either way at 10,000 × 384 dimensions, 12.1 ms flat
 * against 6.7 ms quantised at 64,000, with the same top 25).
 */
export const DEFAULT_EXACT_VECTOR_BYTES = 32 * 2 ** 20;

/**
 * Default {@link LanceDbStoreOptions.memoryIndexMaxChunks}: 50,000. Measured with
 * `engram-bench perf` (hybrid p50 CPU, LanceDB's own searches → through the copy): 10,000 chunks
 * ~19 → ~4 ms, 25,000 43 → 6 ms, 50,000 20 → 11 ms, 100,000 19–21 → 16–23 ms; at 100,000 a
 * long-lived process held ~1.1 GB with the copy against ~0.25 GB without (README).
 */
export const DEFAULT_MEMORY_INDEX_MAX_CHUNKS = 50_000;

/** Default {@link LanceDbStoreOptions.fulltextStaleFraction}. */
export const DEFAULT_FULLTEXT_STALE_FRACTION = 0.05;

/**
 * Default {@link LanceDbStoreOptions.versionRetentionMs} for a local folder: none. Every superseded
 * version is pruned at the next upkeep, so the folder holds one version of each table at rest; a
 * read in flight across a prune is retried. (Keeping ten minutes of versions made a
 * 100,000-chunk index 20× its live size right after a sync.) On object storage the default is the
 * read consistency interval.
 */
export const DEFAULT_VERSION_RETENTION_MS = 0;

/** Default {@link LanceDbStoreOptions.readConsistencySeconds} for object storage. */
const REMOTE_READ_CONSISTENCY_SECONDS = 5;

// The options' checks, declared once (core's `parseStoreOptions` turns the first complaint into
// `CONFIG_INVALID`); each message completes "it must be …".
const atLeast = (min: number, orInfinity = false) => {
  const expected = `a number ≥ ${min}${orInfinity ? " (or Infinity)" : ""}`;
  const ok = (n: number) => n >= min && (orInfinity || Number.isFinite(n));
  return v.optional(v.pipe(v.number(expected), v.check(ok, expected)));
};
const URI = "a folder path or a URI such as s3://bucket/prefix";
const entries = {
  uri: v.pipe(
    v.string(URI),
    v.check((uri) => uri.trim() !== "", URI),
  ),
  storageOptions: v.optional(
    v.record(v.string(), v.string("a string (LanceDB takes every setting as text)")),
    {},
  ),
  readConsistencySeconds: atLeast(0),
  vectorIndexMinRows: atLeast(1, true),
  fulltextStaleFraction: atLeast(0),
  versionRetentionMs: atLeast(0),
  memoryIndexMaxChunks: atLeast(0, true),
};
const strict = <E extends v.ObjectEntries>(shape: E) =>
  v.strictObject(shape, (issue) =>
    issue.expected === "never" ? "left out: the LanceDB store has no such option" : "an object",
  );
const storeOptions = strict(entries) satisfies v.GenericSchema<LanceDbStoreOptions, unknown>;
const factoryOptions = strict({ ...entries, uri: v.optional(entries.uri) });

/** {@link LanceDbStoreOptions} with every default applied. */
export interface ResolvedOptions {
  uri: string;
  storageOptions: Record<string, string>;
  readConsistencySeconds: number;
  /** Undefined: from the dimensions (see {@link DEFAULT_EXACT_VECTOR_BYTES}). */
  vectorIndexMinRows: number | undefined;
  fulltextStaleFraction: number;
  versionRetentionMs: number;
  memoryIndexMaxChunks: number;
}

/**
 * Check `options` and apply the defaults.
 * @throws EngramError `CONFIG_INVALID` naming the option and the values it takes.
 */
export function resolveOptions(options: LanceDbStoreOptions): ResolvedOptions {
  const checked = parseStoreOptions("lancedb", storeOptions, options);
  const remote = parseLocation(checked.uri).kind === "remote";
  const readConsistencySeconds =
    checked.readConsistencySeconds ?? (remote ? REMOTE_READ_CONSISTENCY_SECONDS : 0);
  return {
    ...checked,
    readConsistencySeconds,
    vectorIndexMinRows: checked.vectorIndexMinRows,
    fulltextStaleFraction: checked.fulltextStaleFraction ?? DEFAULT_FULLTEXT_STALE_FRACTION,
    memoryIndexMaxChunks: checked.memoryIndexMaxChunks ?? DEFAULT_MEMORY_INDEX_MAX_CHUNKS,
    // A reader may use a snapshot this old: keep what it reads until it looks again.
    versionRetentionMs:
      checked.versionRetentionMs ??
      Math.max(DEFAULT_VERSION_RETENTION_MS, readConsistencySeconds * 1000),
  };
}

/** Check the factory's options up front. @throws EngramError `CONFIG_INVALID`. */
export function checkFactoryOptions(options: LanceDbStoreFactoryOptions): void {
  parseStoreOptions("lancedb", factoryOptions, options);
}

/** What kind of place a database URI names. */
export type LocationKind = "local" | "memory" | "remote";

/** A database URI and what the store needs to know about it. */
export interface Location {
  uri: string;
  kind: LocationKind;
  /** The folder on this machine, for `local` locations. */
  folder?: string;
}

/** A URI scheme (`s3:`, `memory:`), but not a Windows drive letter (`C:`). */
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]+):/;

/** Classify `uri`: a plain path or `file://` is local, `memory://` private, anything else remote. */
export function parseLocation(uri: string): Location {
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return { uri, kind: "local", folder: uri };
  if (scheme === "file") return { uri, kind: "local", folder: fileURLToPath(uri) };
  if (scheme === "memory") return { uri, kind: "memory" };
  return { uri, kind: "remote" };
}
