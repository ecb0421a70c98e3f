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
   * Build an approximate (ANN) vector index once the chunks table holds at least this many vectors;
   * below it, vector search is exact (brute force). Default {@link DEFAULT_VECTOR_INDEX_MIN_ROWS}.
   * `Infinity` keeps search exact at any size.
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
 * Vectors from which the HNSW index is built by default. Measured on a shared 2-core machine
 * (384-d, `bench/vector-index.ts`, README): exact search takes 20 ms at 10k vectors, 28 ms at
 * 20k, 62 ms at 50k and 128 ms at 100k; the index answers in 7–11 ms with recall@10 of 1.0 (0.99
 * at 100k). From 20k the index saves ≥ 20 ms per query for a one-off build of ~9 s.
 */
export const DEFAULT_VECTOR_INDEX_MIN_ROWS = 20_000;

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
