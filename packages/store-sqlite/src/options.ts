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
  /**
   * Memory for a copy of the vectors that searches scan with SIMD (USearch's exact search), in MB
   * (default 256, enough for ~170k 384-dimension vectors). The copy is loaded on the first vector
   * search and kept in step with writes, including other processes'. An index whose vectors need
   * more is scanned by sqlite-vec on disk instead (~4× slower, no extra memory); 0 always does.
   * Results are the same either way.
   */
  vectorMemoryMb?: number;
}

/** Options of {@link sqliteStore}, the factory core uses. */
export interface SqliteStoreFactoryOptions {
  /** Database file; relative paths resolve against the workspace. Default `<indexDir>/index.sqlite`. */
  path?: string;
  /** See {@link SqliteStoreOptions.vectors}. */
  vectors?: boolean;
  /** See {@link SqliteStoreOptions.busyTimeoutMs}. */
  busyTimeoutMs?: number;
  /** See {@link SqliteStoreOptions.vectorMemoryMb}. */
  vectorMemoryMb?: number;
}

/** File name of the index inside the workspace's index folder. */
export const DEFAULT_FILE_NAME = "index.sqlite";
