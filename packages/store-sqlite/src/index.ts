/**
 * `@engram/store-sqlite`: engram's embedded default store — one SQLite file with FTS5 full-text
 * search over core's analysed terms and sqlite-vec cosine KNN.
 */
export { createSqliteStore, sqliteStore } from "./factory.js";
export {
  DEFAULT_FILE_NAME,
  type SqliteStoreFactoryOptions,
  type SqliteStoreOptions,
} from "./options.js";
export { SCHEMA_VERSION } from "./schema.js";
