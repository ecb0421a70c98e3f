import {
  type ChunkRecord,
  compareChunkOrder,
  compileLabelFilter,
  rankWithCommonTerms,
  type SearchFilter,
  TermCountEncoder,
  TermCountReader,
} from "@engram/core/driver";
import type { StatementCache } from "./connection.js";
import { type ChunkRow, chunkRowsByRowid, filterConditions, tieOrder } from "./rows.js";
import { CHUNK_TERMS_TABLE, FTS_TABLE } from "./schema.js";
import { TermDictionary } from "./term-dictionary.js";
import { BM25_WEIGHTS, countsDocument, termsDocument } from "./terms.js";

/** A chunk row with its FTS5 `bm25()` value (negative; lower is better). */
export type RankedRow = ChunkRow & { rank: number };

/** Per-connection fts5vocab view of the terms table: document frequency per term. */
const VOCAB_TABLE = "temp.engram_terms_vocab";

/**
 * An FTS5 MATCH expression that matches a row holding ANY of `terms`: the unique, non-empty terms,
 * each double-quoted (quotes doubled) so FTS5 operators and punctuation are taken literally, joined
 * by OR. Undefined when no term is left (the search then has no hits).
 */
export function matchExpression(terms: readonly string[]): string | undefined {
  const unique = [...new Set(terms)].filter((term) => term.length > 0);
  if (unique.length === 0) return undefined;
  return unique.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ");
}

/** Document frequencies remembered per connection before the cache starts over. */
const MAX_CACHED_TERMS = 50_000;

/** Index statistics remembered while the index is unchanged. */
interface IndexStats {
  /** `PRAGMA data_version` and this connection's write count when they were read. */
  key: string;
  /** Chunk count, read on first use when {@link span} cannot stand in for it. */
  total: number | undefined;
  /** `max(rowid) − min(rowid) + 1` of the chunks: at least their count, read on first use. */
  span?: number;
  /** Rows holding each term looked up so far (0: none). */
  df: Map<string, number>;
}

/**
 * The chunks' terms: the FTS5 table, each chunk's term counts (`chunk_terms`, which a delete
 * gives back to FTS5 and `scanTermCounts` reads) and the term ids, written together, and BM25 search
 * over them with FTS5's `bm25()`, which computes engram's ranking (core's `ranking/bm25.ts`).
 */
export class FullTextIndex {
  /**
   * Chunk count and the document frequencies looked up so far, valid while the database's data
   * version and our own write count hold (`key`).
   */
  #stats: IndexStats | undefined;
  #writes = 0;
  readonly #dictionary: TermDictionary;
  readonly #encoder = new TermCountEncoder();

  constructor(private readonly statements: StatementCache) {
    statements.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${VOCAB_TABLE} USING fts5vocab(main, '${FTS_TABLE}', 'row')`,
    );
    this.#dictionary = new TermDictionary(statements);
  }

  /** Index the terms of these chunk rows (in the write transaction). */
  insert(rows: ReadonlyArray<readonly [rowid: number | bigint, chunk: ChunkRecord]>): void {
    if (!rows.length) return;
    const dictionary = this.#dictionary;
    dictionary.begin();
    const id = (term: string) => dictionary.id(term);
    const unknown = new Set<string>();
    const encode = (terms: readonly string[]) =>
      this.#encoder.encode(terms, dictionary.known, id, unknown);
    const blobs = rows.map(([, chunk]) => encode(chunk.terms));
    // Terms the dictionary could not number from memory: look them up (or number them), then
    // encode those chunks again (every term has an id now).
    if (unknown.size) {
      dictionary.resolve(unknown);
      rows.forEach(([, chunk], i) => {
        blobs[i] ??= encode(chunk.terms);
      });
    }
    dictionary.flush();
    const insertFts = this.statements.get(
      `INSERT INTO ${FTS_TABLE} (rowid, terms, chars) VALUES (?, ?, ?)`,
    );
    const insertCounts = this.statements.get(
      `INSERT INTO ${CHUNK_TERMS_TABLE} (rowid, terms) VALUES (?, ?)`,
    );
    rows.forEach(([rowid, chunk], i) => {
      const blob = blobs[i] as Uint8Array;
      if (chunk.terms.length > 0) insertFts.run(rowid, ...termsDocument(chunk.terms));
      insertCounts.run(rowid, blob);
    });
    this.#writes++;
  }

  /**
   * Remove the terms of these chunk rows (in the write transaction). FTS5 is given each row's
   * terms back (from `chunk_terms`), so that it takes them, and their count, out of its totals;
   * the ids' terms come from the term dictionary, in one lookup for all the rows.
   */
  delete(rowids: ReadonlyArray<number | bigint>): void {
    const take = this.statements
      .get(`DELETE FROM ${CHUNK_TERMS_TABLE} WHERE rowid = ? RETURNING terms`)
      .pluck();
    const removed = rowids.map((rowid) => [rowid, take.get(rowid) as Buffer | undefined] as const);
    const termOf = this.#termsById(removed.map(([, terms]) => terms));
    const deleteFts = this.statements.get(
      `INSERT INTO ${FTS_TABLE} (${FTS_TABLE}, rowid, terms, chars) VALUES ('delete', ?, ?, ?)`,
    );
    for (const [rowid, terms] of removed) {
      if (terms?.length) deleteFts.run(rowid, ...countsDocument(terms, termOf));
    }
    this.#writes++;
  }

  /** The terms of every id in these `chunk_terms` blobs. */
  #termsById(blobs: ReadonlyArray<Buffer | undefined>): (id: number) => string | undefined {
    const ids = new Set<number>();
    const reader = new TermCountReader();
    for (const blob of blobs) if (blob) for (reader.read(blob); reader.next(); ) ids.add(reader.id);
    this.#dictionary.begin();
    return this.#dictionary.termsOf(ids);
  }

  /** Remove every chunk's terms (in the write transaction); term ids stay as they are. */
  clear(): void {
    this.statements.get(`INSERT INTO ${FTS_TABLE} (${FTS_TABLE}) VALUES ('delete-all')`).run();
    this.statements.get(`DELETE FROM ${CHUNK_TERMS_TABLE}`).run();
    this.#writes++;
  }

  /** Call after the write transaction rolled back: its changes never happened. */
  rolledBack(): void {
    this.#dictionary.rolledBack();
    this.#writes++;
  }

  /**
   * Best first (lowest bm25), ties by path then start line; a row matches if it holds any term.
   *
   * FTS5's BM25 gives a term in half the rows or more an IDF of ~0 (it clamps
   * `log((N − n + 0.5) / (n + 0.5))` at 1e-6), yet scoring the thousands of rows such a term
   * matches dominates the query time (SciFact, 8k chunks: p50 18 ms → 8 ms without them). So the
   * query first runs without those terms, as core's `rankWithCommonTerms` says; only when that
   * finds fewer than `k` rows does it run with every term.
   */
  search(terms: readonly string[], k: number, filter: SearchFilter | undefined): RankedRow[] {
    const unique = [...new Set(terms)].filter((term) => term.length > 0);
    if (!unique.length) return [];
    // One term is ranked as it is (no other term to leave out), and a term no row holds matches
    // nothing: no statistics needed, one statement (most of a new process's first query was
    // preparing and running the others).
    if (unique.length === 1) return this.query(unique, k, filter);
    // One read transaction: the statistics and the ranking agree.
    return this.reading(() => {
      const stats = this.stats();
      const df = this.documentFrequencies(stats, unique);
      const present = unique.filter((term) => (df.get(term) ?? 0) > 0);
      return rankWithCommonTerms(
        present,
        (term) => df.get(term) ?? 0,
        present.length > 1 ? this.rowsDeciding(stats, present, df) : 0,
        k,
        (chosen) => this.query(chosen, k, filter),
      );
    });
  }

  /**
   * `fn` in a read transaction (or in the one already open). `BEGIN` and `COMMIT` are prepared
   * here: better-sqlite3's `transaction()` prepares nine statements on a connection's first use.
   */
  private reading<T>(fn: () => T): T {
    const db = this.statements.db;
    if (db.inTransaction) return fn();
    this.statements.get("BEGIN").run();
    try {
      return fn();
    } finally {
      if (db.inTransaction) this.statements.get("COMMIT").run();
    }
  }

  /**
   * The best `k` rows for `terms`. FTS5 alone ranks first — a join with `chunks` for the filter
   * and the tie order before the cut costs as much again as BM25 itself — then chunk rows are
   * read in rank order, only as many as the answer needs: `k`, plus one for each row the filter
   * drops, plus the ties of the `k`-th. A new process reads each row's page cold (a one-shot search
   * at 10k chunks read 49 rows and spent ~4 ms on them). That answer is exact once a ranked row
   * scores strictly worse than the `k`-th kept one (no row further down can tie or beat it), or
   * when FTS5 ranked every match; otherwise (a selective filter, a tie at the cut-off longer than
   * the `2k + 1` rows ranked) the joined query answers, which at 100k chunks costs 100–300 ms.
   */
  private query(
    terms: readonly string[],
    k: number,
    filter: SearchFilter | undefined,
  ): RankedRow[] {
    const expression = matchExpression(terms);
    if (expression === undefined) return [];
    if (filter?.pathPrefix) return this.joined(expression, k, filter);
    // Twice k: room for rows a filter drops, and for ties at the cut-off (chunks of the same
    // length holding a term as often tie exactly), which otherwise send the search to the join.
    const fetch = 2 * k + 1;
    const ranked = this.statements
      .get(
        `SELECT rowid, bm25(${FTS_TABLE}, ${BM25_WEIGHTS}) AS rank FROM ${FTS_TABLE}
         WHERE ${FTS_TABLE} MATCH ? ORDER BY rank LIMIT ?`,
      )
      .all(expression, fetch) as Array<{ rowid: number; rank: number }>;
    const accept = compileLabelFilter(filter);
    const kept: RankedRow[] = []; // in rank order (ties in any order)
    let next = 0;
    while (next < ranked.length) {
      const kth = kept[k - 1];
      // As many rows as `k` still lacks (after a dropped row); once `k` are kept, every row tied
      // with the k-th, in one read (the tie order decides among them).
      let end = next + (k - kept.length);
      if (kth !== undefined) {
        end = next;
        while (end < ranked.length && (ranked[end] as { rank: number }).rank <= kth.rank) end++;
        if (end === next) break; // the next row scores strictly worse: nothing below can tie
      }
      const page = ranked.slice(next, end);
      next += page.length;
      // A chunk row missing from `chunks` is left out, as the joined query leaves it.
      for (const row of this.rows(page)) {
        if (!accept || accept(row.tier, row.source)) kept.push(row);
      }
    }
    const exact = next < ranked.length || ranked.length < fetch;
    if (!exact) return this.joined(expression, k, filter);
    return kept.sort((a, b) => a.rank - b.rank || compareChunkOrder(a, b)).slice(0, k);
  }

  /** Rank with the filter and tie order applied in SQL (rowids first, then the k rows in full). */
  private joined(expression: string, k: number, filter: SearchFilter | undefined): RankedRow[] {
    const where = filterConditions(filter, "c");
    const ranked = this.statements
      .get(
        `SELECT c.rowid AS rowid, bm25(${FTS_TABLE}, ${BM25_WEIGHTS}) AS rank
         FROM ${FTS_TABLE} JOIN chunks AS c ON c.rowid = ${FTS_TABLE}.rowid
         WHERE ${FTS_TABLE} MATCH ? ${where.sql}
         ORDER BY rank, ${tieOrder("c")}
         LIMIT ?`,
      )
      .all(expression, ...where.params, k) as Array<{ rowid: number; rank: number }>;
    return this.rows(ranked);
  }

  /** The chunk rows of `ranked`, in its order, each with its rank. */
  private rows(ranked: ReadonlyArray<{ rowid: number; rank: number }>): RankedRow[] {
    const rows = chunkRowsByRowid(
      this.statements,
      ranked.map((r) => r.rowid),
    );
    const byRowid = new Map(rows.map((row) => [row.rowid, row]));
    return ranked.flatMap(({ rowid, rank }) => {
      const row = byRowid.get(rowid);
      return row ? [{ ...row, rank }] : [];
    });
  }

  /**
   * Rows holding each of `terms` (0: none). fts5vocab walks a term's whole doclist to count
   * it, so counts are remembered until the index changes.
   */
  private documentFrequencies(stats: IndexStats, terms: readonly string[]): Map<string, number> {
    const missing = terms.filter((term) => !stats.df.has(term));
    if (missing.length) {
      if (stats.df.size + missing.length > MAX_CACHED_TERMS) stats.df.clear();
      const rows = this.statements
        .get(`SELECT term, doc FROM ${VOCAB_TABLE} WHERE term IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(missing)) as Array<{ term: string; doc: number }>;
      for (const term of missing) stats.df.set(term, 0);
      for (const row of rows) stats.df.set(row.term, row.doc);
    }
    return new Map(terms.map((term) => [term, stats.df.get(term) ?? 0]));
  }

  /**
   * A chunk count that tells each of `present` rare (`2·df < N`) or common exactly as the true
   * count N does: counting the rows walks a whole index (~0.3 ms at 10k chunks, ~3 ms at 100k, a
   * new process's first query pays it), so bounds come first. N is at least the largest df
   * and at most the span of rowids; when every term's `2·df` falls below the one or at or above
   * the other, the span decides them all alike and is returned; otherwise the rows are counted.
   */
  private rowsDeciding(
    stats: IndexStats,
    present: readonly string[],
    df: ReadonlyMap<string, number>,
  ): number {
    if (stats.total !== undefined) return stats.total;
    const counts = present.map((term) => df.get(term) ?? 0);
    const atLeast = Math.max(...counts);
    stats.span ??=
      (this.statements
        .get("SELECT (SELECT max(rowid) FROM chunks) - (SELECT min(rowid) FROM chunks) + 1")
        .pluck()
        .get() as number | null) ?? 0;
    const atMost = stats.span;
    if (counts.every((n) => 2 * n < atLeast || 2 * n >= atMost)) return atMost;
    stats.total = this.statements.get("SELECT count(*) FROM chunks").pluck().get() as number;
    return stats.total;
  }

  /** The remembered statistics, started over when this or another connection changed the index. */
  private stats(): IndexStats {
    const version = this.statements.get("PRAGMA data_version").pluck().get() as number;
    const key = `${version}:${this.#writes}`;
    if (this.#stats?.key !== key) this.#stats = { key, total: undefined, df: new Map() };
    return this.#stats;
  }
}
