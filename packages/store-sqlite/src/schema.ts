import { EngramError, newerLayoutError, RECOVERY_META_KEY } from "@engram/core/driver";
import type { Database } from "better-sqlite3";
import { rebuildHint } from "./failures.js";
import { KEY_VALUE_TABLE } from "./key-value.js";
import { FTS_COLUMNS } from "./terms.js";

/** Meta key under which the store records the vector dimensions set by `reset` (absent: none). */
export const DIMS_META_KEY = "store-sqlite.dims";

/** Full-text table: one row per chunk (same rowid), holding its analysed terms (see `FTS_COLUMNS`). */
export const FTS_TABLE = "chunks_fts";

/** The vec0 table's columns for `dims` dimensions (Euclidean distance, the default metric). */
export function vecColumns(dims: number): string {
  return `embedding float[${dims}], tier text, source text`;
}

/** The vec0 table: one row per embedded chunk, rowid = `chunks.rowid` (exists while dims are set). */
export const VEC_TABLE = "chunks_vec";

/**
 * The same vectors as {@link VEC_TABLE} in a plain table (float32 BLOBs): a point lookup costs
 * ~20 µs where vec0 takes ~500 µs, which the in-memory search needs to rescore its candidates.
 */
export const PLAIN_VECTORS_TABLE = "chunk_vectors";

/** Term ids: every term any chunk held, numbered once and never renumbered or removed. */
export const TERM_IDS_TABLE = "term_ids";

/**
 * Each chunk's terms (same rowid as `chunks`) as (term id, count) pairs in one BLOB (core's
 * term-count codec): what a delete gives back to FTS5 and `scanTermCounts` reads.
 */
export const CHUNK_TERMS_TABLE = "chunk_terms";

/**
 * The layout this package writes (`PRAGMA user_version`); bump it with any change to
 * {@link TABLES}. An index of an older layout is not migrated: like a damaged one it is a cache of
 * the Markdown files, so it is emptied and the next sync rebuilds it, with the embeddings it had
 * cached (see {@link clearOlderLayout}).
 */
export const SCHEMA_VERSION = 8;

/** The key → bytes map (core's embedding cache): kept when an older layout is emptied. */
const KEY_VALUE = `CREATE TABLE IF NOT EXISTS ${KEY_VALUE_TABLE} (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;`;

/**
 * The tables of layout {@link SCHEMA_VERSION} (the vec0 table comes with `reset({ dims })`). The
 * path index also covers tier and source, so a scan reads every chunk's labels from it.
 */
const TABLES = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS files (
    path     TEXT PRIMARY KEY,
    source   TEXT NOT NULL,
    tier     TEXT NOT NULL,
    hash     TEXT NOT NULL,
    mtime_ms INTEGER NOT NULL,
    size     INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS chunks (
    rowid      INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    path       TEXT NOT NULL,
    source     TEXT NOT NULL,
    tier       TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    headings   TEXT NOT NULL,
    text       TEXT NOT NULL,
    hash       TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks (path, start_line, tier, source);
  CREATE VIRTUAL TABLE IF NOT EXISTS ${FTS_TABLE} USING fts5(${FTS_COLUMNS});
  CREATE TABLE IF NOT EXISTS ${PLAIN_VECTORS_TABLE} (rowid INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS ${TERM_IDS_TABLE} (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
  CREATE TABLE IF NOT EXISTS ${CHUNK_TERMS_TABLE} (rowid INTEGER PRIMARY KEY, terms BLOB NOT NULL);
  ${KEY_VALUE}
`;

/** True when the database has a table (or virtual table) named `name`. */
export function tableExists(db: Database, name: string): boolean {
  return (
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
    undefined
  );
}

/** The database's `PRAGMA user_version`. */
export function schemaVersion(db: Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Give the database the tables of layout {@link SCHEMA_VERSION}: create them in a new one, empty
 * one of an older layout first (leaving a `StoreRecovery` note that says so), in one immediate
 * transaction that reads the version again, so two processes opening the same file never do it
 * twice. A database newer than this package is refused, not touched.
 */
export function openLayout(db: Database, path: string): void {
  const found = schemaVersion(db);
  if (found === SCHEMA_VERSION) return;
  if (found > SCHEMA_VERSION) {
    throw newerLayoutError({
      store: `index ${path}`,
      found,
      reader: `@engram/store-sqlite (schema ${SCHEMA_VERSION})`,
      instead: rebuildHint(path),
    });
  }
  db.transaction(() => {
    const current = schemaVersion(db);
    if (current === SCHEMA_VERSION) return; // another connection did it meanwhile
    if (current > 0) clearOlderLayout(db);
    db.exec(TABLES);
    if (current > 0) {
      const note = {
        at: new Date().toISOString(),
        reason: `it has layout ${current}, older than this @engram/store-sqlite's ${SCHEMA_VERSION}`,
        outdated: true,
      };
      db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)").run(
        RECOVERY_META_KEY,
        JSON.stringify([note]),
      );
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/**
 * Drop every table of an older layout but the key → bytes map where core keeps its embedding
 * cache (layout 7 on). Layouts 2–6 kept the cache in a table of their own: its entries move into
 * the map first, as generation 0 of core's `EmbeddingCache`, so the rebuild embeds no text again.
 * Virtual tables go first (each takes its shadow tables with it).
 */
function clearOlderLayout(db: Database): void {
  db.exec(KEY_VALUE);
  if (tableExists(db, "embedding_cache")) {
    db.exec(`INSERT OR REPLACE INTO ${KEY_VALUE_TABLE} (key, value)
      SELECT 'embedding/0/' || key, embedding FROM embedding_cache`);
  }
  const tables = () =>
    db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name <> ?",
      )
      .raw()
      .all(KEY_VALUE_TABLE) as Array<[string, string]>;
  for (const [name, sql] of tables()) {
    if (!/^CREATE VIRTUAL TABLE/i.test(sql)) continue;
    if (/USING\s+vec0/i.test(sql)) requireVec0(db);
    db.exec(`DROP TABLE "${name}"`);
  }
  for (const [name] of tables()) db.exec(`DROP TABLE "${name}"`);
}

/** Refuse to drop a vec0 table without sqlite-vec loaded (`vectors: false`). */
function requireVec0(db: Database): void {
  if (!db.prepare("SELECT 1 FROM pragma_module_list WHERE name = 'vec0'").get()) {
    throw new EngramError(
      "STORE_FAILED",
      "This index holds vectors and needs sqlite-vec to rebuild, but the store was opened with `vectors: false`.",
      {
        hint: "Open it once with vectors enabled (the default), or delete the index file to rebuild it keyword-only.",
      },
    );
  }
}
