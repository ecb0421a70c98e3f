/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file, created if missing (its folder must exist). `":memory:"` for a private in-memory store. */
  path: string;
  /**
   * Load sqlite-vec and offer vector search (default true). false gives a keyword-only store that
   * needs no native extension; it refuses `reset({ dims })` with a number.
   */
  vectors?: boolean;
  /** How long a write waits for another process's write lock before failing (ms, default 5000). */
  busyTimeoutMs?: number;
}

/** Options of {@link sqliteStore}, the factory core uses. */
export interface SqliteStoreFactoryOptions {
  /** Database file; relative paths resolve against the workspace. Default `<indexDir>/index.sqlite`. */
  path?: string;
  /** See {@link SqliteStoreOptions.vectors}. */
  vectors?: boolean;
  /** See {@link SqliteStoreOptions.busyTimeoutMs}. */
  busyTimeoutMs?: number;
}

/** File name of the index inside the workspace's index folder. */
export const DEFAULT_FILE_NAME = "index.sqlite";

/** Every option {@link sqliteStore} takes (others are refused). */
export const SQLITE_OPTION_NAMES = [
  "path",
  "vectors",
  "busyTimeoutMs",
] as const satisfies ReadonlyArray<keyof SqliteStoreFactoryOptions>;

/**
 * Options earlier versions took to size and time their in-memory copies of the index, which this
 * store no longer keeps (a long-lived process puts core's `withMemoryIndex` in front of it): a
 * workspace config that still sets one opens with a deprecation warning, not an error.
 */
export const DEPRECATED_OPTION_NAMES = [
  "vectorMemoryMb",
  "vectorMemoryAfterSearches",
  "vectorMemoryBackgroundAbove",
  "keywordMemoryMb",
  "keywordMemoryAfterSearches",
  "keywordMemoryBackgroundAbove",
] as const;
