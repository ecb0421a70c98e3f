import { EngramError, newerLayoutError } from "@engram/core/driver";
import type { Database, Statement } from "better-sqlite3";
import { rebuildHint } from "./failures.js";
import { KEY_VALUE_TABLE } from "./key-value.js";
import { blobToVector, toUnitLength, vectorToBlob } from "./rows.js";
import { countsDocument, encodeTermCounts, FTS_COLUMNS } from "./terms.js";

/**
 * One step of the schema history: migration `i` moves a database from `user_version` i to i + 1.
 * The list is append-only; a released step is never edited (write a new one instead).
 */
export type Migration = (db: Database) => void;

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
 * Each chunk's terms (same rowid as `chunks`) as (term id, count) pairs in one BLOB (see
 * `term-counts.ts`): what the in-memory keyword index loads from without re-analysing text.
 */
export const CHUNK_TERMS_TABLE = "chunk_terms";

export const MIGRATIONS: readonly Migration[] = [
  // 0 → 1: files, chunks and their full-text terms.
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;

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
      CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks (path, start_line);

      -- Terms come analysed by core (letters, marks and numbers only, joined by one space); the
      -- ascii tokenizer splits them on the spaces and keeps every non-ASCII character, so it
      -- reproduces them exactly. Never re-analyse here.
      CREATE VIRTUAL TABLE IF NOT EXISTS ${FTS_TABLE} USING fts5(
        terms, content='', contentless_delete=1, tokenize='ascii'
      );
    `);
  },
  // 1 → 2: the embedding cache (LRU by a monotonically increasing use counter).
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS embedding_cache (
        key       TEXT PRIMARY KEY,
        embedding BLOB NOT NULL,
        dims      INTEGER NOT NULL,
        last_used INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS embedding_cache_by_use ON embedding_cache (last_used);
    `);
  },
  // 2 → 3: the vectors also in a plain table, copied from vec0 when it holds any.
  (db) => {
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${PLAIN_VECTORS_TABLE} (rowid INTEGER PRIMARY KEY, embedding BLOB NOT NULL)`,
    );
    if (!tableExists(db, VEC_TABLE)) return;
    requireVec0(db);
    db.exec(
      `INSERT INTO ${PLAIN_VECTORS_TABLE} (rowid, embedding) SELECT rowid, embedding FROM ${VEC_TABLE}`,
    );
  },
  // 3 → 4: term ids and each chunk's term counts. The FTS5 table is contentless, so chunks written
  // before this step get their row only when re-indexed; until every chunk has one, keyword
  // search stays on FTS5. The path index also covers tier and source, so the in-memory copies
  // read every chunk's labels from it instead of scanning the chunk texts (~10× faster).
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS ${TERM_IDS_TABLE} (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
      CREATE TABLE IF NOT EXISTS ${CHUNK_TERMS_TABLE} (rowid INTEGER PRIMARY KEY, terms BLOB NOT NULL);
      DROP INDEX IF EXISTS chunks_by_path;
      CREATE INDEX chunks_by_path ON chunks (path, start_line, tier, source);
    `);
  },
  // 4 → 5: the FTS5 table without `contentless_delete`, whose deletes never lowered BM25's row and
  // token totals; deletes now pass the row's terms (from `chunk_terms`) and the totals stay exact.
  // Chunks from before step 4 get their `chunk_terms` row from the old FTS5 index first.
  (db) => rebuildFullText(db),
  // 5 → 6: single Han and kana characters in a column of their own, which `bm25()` weighs so that
  // they count by presence (core's CHARACTER_TERM_WEIGHT); rebuilt from `chunk_terms`.
  (db) => rebuildFullText(db),
  // 6 → 7: a plain key → bytes table in place of the embedding cache's own; core keeps its cache
  // there and decides what stays. Cached vectors move to where core's cache finds them
  // (`embedding/<generation>/<key>`, generation 0: see core's `EmbeddingCache`), so no text is
  // embedded again after the upgrade.
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS ${KEY_VALUE_TABLE} (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
      INSERT OR REPLACE INTO ${KEY_VALUE_TABLE} (key, value)
        SELECT 'embedding/0/' || key, embedding FROM embedding_cache;
      DROP TABLE embedding_cache;
    `);
  },
  // 7 → 8: vec0 holds the vectors scaled to unit length and is searched by Euclidean distance
  // (cheaper than its cosine scan; candidates are rescored exactly from the plain table). Rebuilt
  // from the plain vectors table, which holds every vector as written.
  (db) => {
    if (!tableExists(db, VEC_TABLE)) return;
    requireVec0(db);
    const dims = Number(
      db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(DIMS_META_KEY) ?? 0,
    );
    db.exec(`DROP TABLE ${VEC_TABLE}`);
    if (!(dims > 0)) return;
    db.exec(
      `CREATE VIRTUAL TABLE ${VEC_TABLE} USING vec0(embedding float[${dims}], tier text, source text)`,
    );
    const insert = db.prepare(
      `INSERT INTO ${VEC_TABLE} (rowid, embedding, tier, source) VALUES (?, ?, ?, ?)`,
    );
    const rows = db.prepare(
      `SELECT v.rowid, v.embedding, c.tier, c.source FROM ${PLAIN_VECTORS_TABLE} AS v
       JOIN chunks AS c ON c.rowid = v.rowid WHERE v.rowid > ? ORDER BY v.rowid LIMIT ?`,
    );
    for (const [rowid, blob, tier, source] of inPages<[number, Buffer, string, string]>(rows)) {
      const unit = toUnitLength(blobToVector(blob));
      if (unit) insert.run(BigInt(rowid), vectorToBlob(unit), tier, source);
    }
  },
];

/** Refuse to upgrade vectors without sqlite-vec loaded (`vectors: false`). */
function requireVec0(db: Database): void {
  if (!db.prepare("SELECT 1 FROM pragma_module_list WHERE name = 'vec0'").get()) {
    throw new EngramError(
      "STORE_FAILED",
      "This index holds vectors and needs sqlite-vec to upgrade, but the store was opened with `vectors: false`.",
      {
        hint: "Open it once with vectors enabled (the default), or delete the index file to rebuild it keyword-only.",
      },
    );
  }
}

/** True when the database has a table (or virtual table) named `name`. */
export function tableExists(db: Database, name: string): boolean {
  return (
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
    undefined
  );
}

/** The schema version this package writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The database's `PRAGMA user_version`. */
export function schemaVersion(db: Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Bring the schema to `target` (default: {@link SCHEMA_VERSION}), one step per transaction. Each
 * step re-reads the version under a write lock, so two processes opening the same new database
 * never run a step twice. A database newer than this package is refused, not touched.
 */
export function migrate(db: Database, path: string, target: number = SCHEMA_VERSION): void {
  const found = schemaVersion(db);
  if (found > SCHEMA_VERSION) {
    throw newerLayoutError({
      store: `index ${path}`,
      found,
      reader: `@engram/store-sqlite (schema ${SCHEMA_VERSION})`,
      instead: rebuildHint(path),
    });
  }
  for (let step = found; step < target; step++) {
    db.transaction(() => {
      const current = schemaVersion(db);
      if (current !== step) return; // another connection ran this step meanwhile
      const migration = MIGRATIONS[step];
      if (!migration) throw new Error(`no migration from schema version ${step}`);
      migration(db);
      db.pragma(`user_version = ${step + 1}`);
    }).immediate();
  }
}

/**
 * Rebuild the FTS5 table as {@link FTS_COLUMNS} describes, from `chunk_terms`. Schema 4 → 5: it
 * replaced the `contentless_delete` table, whose BM25 totals never drop on delete (they counted
 * every row ever inserted, so a long-lived index ranked unlike a fresh one), by a contentless
 * table that is told each deleted row's terms. Schema 5 → 6: single characters move to their own
 * column.
 * Chunks written before schema 4 have no `chunk_terms` row: theirs is read back from the old
 * FTS5 index first (its term instances), so every chunk keeps its terms, and the in-memory
 * postings can serve every index from now on.
 */
function rebuildFullText(db: Database): void {
  fillMissingTermCounts(db);
  const next = `${FTS_TABLE}_rebuilt`;
  db.exec(`DROP TABLE IF EXISTS ${next}; CREATE VIRTUAL TABLE ${next} USING fts5(${FTS_COLUMNS})`);
  const termOf = db.prepare(`SELECT id, term FROM ${TERM_IDS_TABLE}`).raw().all() as Array<
    [number, string]
  >;
  const terms: string[] = [];
  for (const [id, term] of termOf) terms[id] = term;
  const insert = db.prepare(`INSERT INTO ${next} (rowid, terms, chars) VALUES (?, ?, ?)`);
  const rows = db.prepare(
    `SELECT rowid, terms FROM ${CHUNK_TERMS_TABLE} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  );
  for (const [rowid, blob] of inPages<[number, Buffer]>(rows)) {
    if (blob.length) insert.run(rowid, ...countsDocument(blob, (id) => terms[id]));
  }
  db.exec(`DROP TABLE ${FTS_TABLE}; ALTER TABLE ${next} RENAME TO ${FTS_TABLE}`);
}

/**
 * Give every chunk without a `chunk_terms` row one, from the FTS5 index's own term instances
 * (what it indexed for the chunk, which is what BM25 scores); an empty one for a chunk it holds
 * nothing for. Terms the index holds get ids first.
 */
function fillMissingTermCounts(db: Database): void {
  const missing = `SELECT rowid FROM chunks WHERE rowid NOT IN (SELECT rowid FROM ${CHUNK_TERMS_TABLE})`;
  if (db.prepare(`SELECT EXISTS (${missing})`).pluck().get() === 0) return;
  db.exec(`
    CREATE VIRTUAL TABLE temp.engram_upgrade_rows USING fts5vocab(main, '${FTS_TABLE}', 'row');
    CREATE VIRTUAL TABLE temp.engram_upgrade_instances USING fts5vocab(main, '${FTS_TABLE}', 'instance');
    INSERT OR IGNORE INTO ${TERM_IDS_TABLE} (term) SELECT term FROM temp.engram_upgrade_rows;
  `);
  db.exec(`
    CREATE TEMP TABLE engram_upgrade_counts AS
      SELECT i.doc AS doc, t.id AS id, count(*) AS n
      FROM temp.engram_upgrade_instances AS i JOIN ${TERM_IDS_TABLE} AS t ON t.term = i.term
      WHERE i.doc IN (${missing})
      GROUP BY i.doc, t.id ORDER BY i.doc, t.id;
  `);
  const insert = db.prepare(`INSERT INTO ${CHUNK_TERMS_TABLE} (rowid, terms) VALUES (?, ?)`);
  const pairs = db.prepare(
    "SELECT rowid, doc, id, n FROM temp.engram_upgrade_counts WHERE rowid > ? ORDER BY rowid LIMIT ?",
  );
  let doc: number | undefined;
  let ids: number[] = [];
  const counts: number[] = [];
  for (const [, rowid, id, count] of inPages<[number, number, number, number]>(pairs)) {
    if (rowid !== doc) {
      if (doc !== undefined) insert.run(doc, encodeTermCounts(ids, counts));
      doc = rowid;
      ids = [];
    }
    ids.push(id);
    counts[id] = count;
  }
  if (doc !== undefined) insert.run(doc, encodeTermCounts(ids, counts));
  db.exec(`
    INSERT INTO ${CHUNK_TERMS_TABLE} (rowid, terms) SELECT rowid, x'' FROM (${missing});
    DROP TABLE temp.engram_upgrade_rows;
    DROP TABLE temp.engram_upgrade_instances;
    DROP TABLE temp.engram_upgrade_counts;
  `);
}

/**
 * The rows of `statement` (`SELECT key, … WHERE key > ? ORDER BY key LIMIT ?`, the key an integer
 * such as the rowid), read a page of at most `size` rows per execution. No statement is left
 * iterating between pages, so the caller may run others in between (better-sqlite3 allows none
 * while one iterates), without holding every row in memory.
 */
function* inPages<Row extends [number, ...unknown[]]>(
  statement: Statement,
  size = 4096,
): Generator<Row> {
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const page = statement.raw().all(after, size) as Row[];
    yield* page;
    const last = page[page.length - 1];
    if (!last || page.length < size) return;
    after = last[0];
  }
}
