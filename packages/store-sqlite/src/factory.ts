import { isAbsolute, join, resolve } from "node:path";
import {
  defineStore,
  type MemoryStore,
  parseStoreOptions,
  type StoreFactory,
  withoutDeprecatedOptions,
} from "@engram/core/driver";
import * as v from "valibot";
import { isInMemory } from "./connection.js";
import { SqliteDriver } from "./sqlite-store.js";

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
export interface SqliteStoreFactoryOptions extends Omit<SqliteStoreOptions, "path"> {
  /** Database file; relative paths resolve against the workspace. Default `<indexDir>/index.sqlite`. */
  path?: string;
}

/** File name of the index inside the workspace's index folder. */
export const DEFAULT_FILE_NAME = "index.sqlite";

/**
 * Options earlier versions took to size and time their in-memory copies of the index, which this
 * store no longer keeps (a long-lived process puts core's `withMemoryIndex` in front of it): a
 * workspace config that still sets one opens with a deprecation warning, not an error.
 */
const DEPRECATED_OPTION_NAMES = [
  "vectorMemoryMb",
  "vectorMemoryAfterSearches",
  "vectorMemoryBackgroundAbove",
  "keywordMemoryMb",
  "keywordMemoryAfterSearches",
  "keywordMemoryBackgroundAbove",
] as const;

// The options' checks, declared once (core's `parseStoreOptions` turns the first complaint into
// `CONFIG_INVALID`); each message completes "it must be …".
const WHOLE = "a whole number ≥ 0";
const entries = {
  path: v.string('a file path, or ":memory:"'),
  vectors: v.optional(v.boolean("true or false"), true),
  busyTimeoutMs: v.optional(v.pipe(v.number(WHOLE), v.integer(WHOLE), v.minValue(0, WHOLE)), 5000),
};
const strict = <E extends v.ObjectEntries>(shape: E) =>
  v.strictObject(shape, (issue) =>
    issue.expected === "never" ? "left out: the SQLite store has no such option" : "an object",
  );
const storeOptions = strict(entries) satisfies v.GenericSchema<SqliteStoreOptions, unknown>;
const factoryOptions = strict({ ...entries, path: v.optional(entries.path) });

/** {@link SqliteStoreOptions} with every default applied. */
export type ResolvedOptions = v.InferOutput<typeof storeOptions>;

/**
 * A SQLite store over the file `options.path` (`":memory:"` for a private in-memory store). Call
 * `init()` before use; that is when the file is opened or created (an index of an older layout is emptied for a rebuild).
 *
 * @throws EngramError `CONFIG_INVALID` for an option it does not take or a value out of range.
 */
export function createSqliteStore(options: SqliteStoreOptions): MemoryStore {
  return defineStore(new SqliteDriver(parseStoreOptions("sqlite", storeOptions, options)));
}

/**
 * The factory core uses to open a workspace's store: by default the file `index.sqlite` in the
 * workspace's index folder (`<workspace>/.engram/index.sqlite`). Options are checked up front.
 *
 * @throws EngramError `CONFIG_INVALID` for an option it does not take or a value out of range.
 */
export function sqliteStore(options: SqliteStoreFactoryOptions = {}): StoreFactory {
  const kept = withoutDeprecatedOptions(
    "sqlite",
    options,
    DEPRECATED_OPTION_NAMES,
    "it keeps no copy of the index in memory any more (long-lived processes such as engram watch and mcp put core's in-memory index in front of it)",
  );
  parseStoreOptions("sqlite", factoryOptions, kept);
  const { path: configured, ...rest } = kept;
  return ({ workspace, indexDir }) => {
    const path =
      configured === undefined
        ? join(indexDir, DEFAULT_FILE_NAME)
        : isInMemory(configured) || isAbsolute(configured)
          ? configured
          : resolve(workspace, configured);
    return createSqliteStore({ ...rest, path });
  };
}
