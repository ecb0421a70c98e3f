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
