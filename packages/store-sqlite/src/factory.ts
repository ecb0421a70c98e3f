import { isAbsolute, join, resolve } from "node:path";
import { checkStoreOptions, type MemoryStore, type StoreFactory } from "@engram/core/driver";
import { isInMemory } from "./connection.js";
import {
  DEFAULT_FILE_NAME,
  DEPRECATED_OPTION_NAMES,
  SQLITE_OPTION_NAMES,
  type SqliteStoreFactoryOptions,
  type SqliteStoreOptions,
} from "./options.js";
import { SqliteStore } from "./sqlite-store.js";

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
