import { errorSummary, storeFailedError } from "@engram/core/driver";
import Database, { type Statement } from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";

/** How a connection is opened. */
export interface ConnectionOptions {
  /** Load sqlite-vec. */
  vectors: boolean;
  /** How long a statement waits for another connection's lock before failing (ms). */
  busyTimeoutMs: number;
}

/** Page cache per connection (KiB). SQLite's 2 MiB default thrashes on a 50–100 MB index. */
const CACHE_KIB = 16 * 1024;

/**
 * Page size of a new index file (bytes; SQLite's default is 4,096). The index holds rows of 1.5 KB
 * and more (a 384-dimension vector is 1,536 bytes, in `chunk_vectors` and in the embedding cache):
 * a 4 KiB page fits two such rows and leaves a quarter empty, and in the cache's key-ordered
 * table (`WITHOUT ROWID`, at most ~1,000 bytes of a row on its page) each row spilled its tail
 * onto an overflow page of its own. At 100,000 embedded chunks (`engram-bench perf`) the file after
 * a cold sync measured 809 MB with 4 KiB pages and 615 MB with 16 KiB, for the same sync time, and a
 * new process's first vector search took 82–105 ms instead of 124–128. SQLite sets the size when
 * the file gets its first table: an existing index keeps the size it was made with.
 */
const PAGE_SIZE = 16 * 1024;

/** True for SQLite's private in-memory database names. */
export function isInMemory(path: string): boolean {
  return path === ":memory:" || path === "";
}

/**
 * Open the database file with the store's pragmas: WAL (readers never wait for the writer),
 * synchronous=NORMAL (power loss may drop the last commits, never corrupts; the index is a cache
 * anyway), a busy timeout for cross-process writers, 16 KiB pages (a new file), a 16 MiB page
 * cache. Throws SQLite's own errors; the caller wraps them.
 *
 * A missing file is created (its folder must exist: core's `IndexFile` checks). (A `-wal` left over from a deleted index is not replayed into the new
 * file: a new database starts in rollback mode, and SQLite resets the WAL when WAL mode begins.
 * `test/recovery.test.ts` holds SQLite to that.)
 */
export function openConnection(path: string, options: ConnectionOptions): Database.Database {
  const db = new Database(path, { timeout: options.busyTimeoutMs });
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
    // Before WAL: once the file is in WAL mode its page size is fixed.
    db.pragma(`page_size = ${PAGE_SIZE}`);
    if (!isInMemory(path)) db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // Deleted rows are overwritten with zeros, not left in free pages: a file removed or sealed
    // (see core's sealing/) leaves no plaintext behind in the index file.
    db.pragma("secure_delete = ON");
    db.pragma(`cache_size = -${CACHE_KIB}`);
    if (options.vectors) loadVectors(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function loadVectors(db: Database.Database): void {
  try {
    sqliteVec.load(db);
  } catch (error) {
    throw storeFailedError({
      action: "load the sqlite-vec extension",
      problem: errorSummary(error),
      where: db.name,
      hint: "Reinstall @engram/store-sqlite so npm fetches sqlite-vec's binary for this platform, or open the store with `vectors: false` for keyword-only search.",
      cause: error,
    });
  }
}

/**
 * Prepared statements of one connection, each prepared once on first use and reused after. Keyed
 * by SQL text: filtered searches build their SQL from which filter fields are present, so a few
 * variants per query exist at most.
 */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(readonly db: Database.Database) {}

  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Drop statements whose SQL mentions `table` (after the table was dropped or recreated). */
  forget(table: string): void {
    for (const sql of this.statements.keys()) if (sql.includes(table)) this.statements.delete(sql);
  }
}
