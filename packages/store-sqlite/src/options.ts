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
   * Memory for an int8 copy of the vectors that searches scan with SIMD (USearch's exact search)
   * before rescoring the candidates exactly, in MB (default 256: dims + 64 bytes a vector, enough
   * for ~600k 384-dimension vectors). The copy is loaded when a connection
   * searches vectors (after {@link vectorMemoryAfterSearches}) and kept in step with writes,
   * including other processes'. An index whose vectors need
   * more is scanned by sqlite-vec on disk instead (5–10× slower, no extra memory); 0 always does.
   * Results are the same either way.
   */
  vectorMemoryMb?: number;
  /**
   * Vector searches a connection answers with sqlite-vec before it loads the in-memory copy
   * (default 1, so a one-shot process such as `engram search` never pays for loading; 0 loads on
   * the first search, for a long-lived server that wants its first answer fast too).
   */
  vectorMemoryAfterSearches?: number;
  /**
   * Vectors above which the in-memory copy loads in the background, a few ms at a time between
   * turns of the event loop, while sqlite-vec answers searches (default 2,000; 100k vectors of 384
   * dimensions take ~1.6 s). A load overtaken by a write starts again later. A large number loads
   * every copy at once, inside the search that needs it.
   */
  vectorMemoryBackgroundAbove?: number;
  /**
   * Memory for an in-memory copy of the keyword index's postings, in MB (default 128; ~35 MB holds
   * 100k chunks of notes). Keyword searches are scored from it instead of FTS5, ~10× faster with
   * the same results and scores. Loaded when a connection searches text (after
   * {@link keywordMemoryAfterSearches}) and kept in step with writes, including other processes'.
   * Larger postings, or 0, leave searches to FTS5.
   */
  keywordMemoryMb?: number;
  /**
   * Keyword searches a connection answers with FTS5 before it loads the postings (default 1, so a
   * one-shot `engram search` never pays for loading; 0 loads on the first search).
   */
  keywordMemoryAfterSearches?: number;
  /**
   * Chunks above which the postings load in the background, a few ms at a time between turns of
   * the event loop, while FTS5 answers searches (default 2,000: a larger load would hold up the
   * search that starts it; 100k chunks take ~3 s). A load overtaken by a write to the index starts
   * again later. A large number loads every index at once, inside the search that needs it.
   */
  keywordMemoryBackgroundAbove?: number;
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
  /** See {@link SqliteStoreOptions.vectorMemoryAfterSearches}. */
  vectorMemoryAfterSearches?: number;
  /** See {@link SqliteStoreOptions.vectorMemoryBackgroundAbove}. */
  vectorMemoryBackgroundAbove?: number;
  /** See {@link SqliteStoreOptions.keywordMemoryMb}. */
  keywordMemoryMb?: number;
  /** See {@link SqliteStoreOptions.keywordMemoryAfterSearches}. */
  keywordMemoryAfterSearches?: number;
  /** See {@link SqliteStoreOptions.keywordMemoryBackgroundAbove}. */
  keywordMemoryBackgroundAbove?: number;
}

/** File name of the index inside the workspace's index folder. */
export const DEFAULT_FILE_NAME = "index.sqlite";

/** Every option {@link sqliteStore} takes (others are refused). */
export const SQLITE_OPTION_NAMES = [
  "path",
  "vectors",
  "busyTimeoutMs",
  "vectorMemoryMb",
  "vectorMemoryAfterSearches",
  "vectorMemoryBackgroundAbove",
  "keywordMemoryMb",
  "keywordMemoryAfterSearches",
  "keywordMemoryBackgroundAbove",
] as const satisfies ReadonlyArray<keyof SqliteStoreFactoryOptions>;
