import type { Database, Statement } from "better-sqlite3";
import { CHUNK_TERMS_TABLE, FTS_TABLE, TERM_IDS_TABLE } from "./schema.js";
import { countsDocument, encodeTermCounts, FTS_COLUMNS } from "./terms.js";

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
export function rebuildFullText(db: Database): void {
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
 * such as the rowid), a page of at most `size` rows per execution. No statement is left iterating
 * between pages, so the caller may run others in between (better-sqlite3 allows none while one
 * iterates) or stop between turns of the event loop, without holding every row in memory.
 */
export function* keysetPages<Row extends [number, ...unknown[]]>(
  statement: Statement,
  size: number,
): Generator<Row[]> {
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const page = statement.raw().all(after, size) as Row[];
    const last = page[page.length - 1];
    if (!last) return;
    yield page;
    if (page.length < size) return;
    after = last[0];
  }
}

/** {@link keysetPages}, row by row. */
export function* inPages<Row extends [number, ...unknown[]]>(
  statement: Statement,
  size = 4096,
): Generator<Row> {
  for (const page of keysetPages<Row>(statement, size)) yield* page;
}
