/**
 * `@engram/store-sqlite`: engram's embedded default store — one SQLite file with FTS5 full-text
 * search over core's analysed terms and sqlite-vec cosine KNN.
 */
export {
  createSqliteStore,
  DEFAULT_FILE_NAME,
  type SqliteStoreFactoryOptions,
  type SqliteStoreOptions,
  sqliteStore,
} from "./factory.js";
export { SCHEMA_VERSION } from "./schema.js";
