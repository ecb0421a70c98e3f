import { isAbsolute, join, resolve } from "node:path";
import { checkStoreOptions, type MemoryStore, type StoreFactory } from "@engram/core/driver";
import { isInMemory } from "./connection.js";
import { SqliteStore } from "./sqlite-store.js";

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

/**
 * A SQLite store over the file `options.path` (`":memory:"` for a private in-memory store). Call
 * `init()` before use; that is when the file is opened, created or migrated.
 */
export function createSqliteStore(options: SqliteStoreOptions): MemoryStore {
  return new SqliteStore(options);
}

/**
 * The factory core uses to open a workspace's store: by default the file `index.sqlite` in the
 * workspace's index folder (`<workspace>/.engram/index.sqlite`).
 */
export function sqliteStore(options: SqliteStoreFactoryOptions = {}): StoreFactory {
  const deprecated = Object.keys(options).filter((key) =>
    (DEPRECATED_OPTION_NAMES as readonly string[]).includes(key),
  );
  if (deprecated.length) {
    process.emitWarning(
      `the sqlite store ignores ${deprecated.map((key) => `"${key}"`).join(", ")}: it keeps no copy of the index in memory any more (long-lived processes such as engram watch and mcp put core's in-memory index in front of it); remove ${deprecated.length > 1 ? "them" : "it"} from store.options`,
      { code: "ENGRAM_DEPRECATED_OPTION" },
    );
  }
  checkStoreOptions("sqlite", options, [...SQLITE_OPTION_NAMES, ...DEPRECATED_OPTION_NAMES]);
  return ({ workspace, indexDir }) => {
    const configured = options.path;
    const path =
      configured === undefined
        ? join(indexDir, DEFAULT_FILE_NAME)
        : isInMemory(configured) || isAbsolute(configured)
          ? configured
          : resolve(workspace, configured);
    const storeOptions: SqliteStoreOptions = { path };
    // Every other option passes through as given (absent ones stay absent: the store's defaults).
    for (const [key, value] of Object.entries(options)) {
      if (key === "path" || value === undefined) continue;
      if ((DEPRECATED_OPTION_NAMES as readonly string[]).includes(key)) continue;
      Object.assign(storeOptions, { [key]: value });
    }
    return createSqliteStore(storeOptions);
  };
}
