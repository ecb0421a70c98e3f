import { compileLabelFilter, type SearchFilter } from "@engram/core";
import { filterConditions } from "./filters.js";
import {
  type ChunkRow,
  chunkColumns,
  chunkRowsByRowid,
  compareRowOrder,
  tieOrder,
} from "./rows.js";
import { FTS_TABLE } from "./schema.js";
import type { StatementCache } from "./statements.js";

/** A chunk row with its FTS5 `bm25()` value (negative; lower is better). */
export type RankedRow = ChunkRow & { rank: number };

/** Per-connection fts5vocab view of the terms table: document frequency per term. */
const VOCAB_TABLE = "temp.engram_terms_vocab";

/** The text the FTS5 table indexes for a chunk: its analysed terms, one space apart. */
export function termsDocument(terms: readonly string[]): string {
  return terms.join(" ");
}

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
  /** Chunk count, read on first use. */
  total: number | undefined;
  /** Rows holding each term looked up so far (0: none). */
  df: Map<string, number>;
}

/** BM25 search over the terms table, with filters applied in SQL. */
export class FullTextIndex {
  /**
   * Chunk count and the document frequencies looked up so far, valid while the database's data
   * version and our own write count hold (`key`).
   */
  #stats: IndexStats | undefined;
  #writes = 0;

  constructor(private readonly statements: StatementCache) {
    statements.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${VOCAB_TABLE} USING fts5vocab(main, '${FTS_TABLE}', 'row')`,
    );
  }

  /** Call after this connection changed the terms table (other connections are noticed by themselves). */
  changed(): void {
    this.#writes++;
  }

  /**
   * Best first (lowest bm25), ties by path then start line; a row matches if it holds any term.
   *
   * FTS5's BM25 gives a term in half the rows or more an IDF of ~0 (it clamps
   * `log((N − n + 0.5) / (n + 0.5))` at 1e-6), yet scoring the thousands of rows such a term
   * matches dominates the query time (SciFact, 8k chunks: p50 18 ms → 8 ms without them). So the
   * query first runs without those terms; only when that finds fewer than `k` rows does it run
   * with every term, so a row matching nothing but common terms is still found. The top `k` is the
   * same either way except between rows whose scores differ by less than ~1e-5.
   */
  search(terms: readonly string[], k: number, filter: SearchFilter | undefined): RankedRow[] {
    const unique = [...new Set(terms)].filter((term) => term.length > 0);
    if (!unique.length) return [];
    const stats = this.stats();
    const df = this.documentFrequencies(stats, unique);
    const present = unique.filter((term) => (df.get(term) ?? 0) > 0);
    if (!present.length) return [];
    const total = this.totalRows(stats);
    const weighted = present.filter((term) => 2 * (df.get(term) ?? 0) < total);
    if (weighted.length && weighted.length < present.length) {
      const rows = this.query(weighted, k, filter);
      if (rows.length >= k) return rows;
    }
    return this.query(present, k, filter);
  }

  /**
   * The best `k` rows for `terms`. FTS5 alone ranks first — a join with `chunks` for the filter
   * and the tie order before the cut costs as much again as BM25 itself — and the few rows it
   * returns are joined with their chunk rows in the same statement (one rowid lookup each), then
   * filtered and ordered here. That answer is exact when the `k`-th kept row scores strictly
   * better than the last row ranked (no row further down can tie or beat it), or FTS5 ranked every
   * match; otherwise (a selective filter, a tie at the cut-off) the joined query answers.
   */
  private query(
    terms: readonly string[],
    k: number,
    filter: SearchFilter | undefined,
  ): RankedRow[] {
    const expression = matchExpression(terms);
    if (expression === undefined) return [];
    if (filter?.pathPrefix) return this.joined(expression, k, filter);
    const fetch = k + 1 + (filter?.tiers || filter?.sources ? k : 0);
    // LEFT JOIN: every ranked row comes back (a chunk row missing from `chunks` reads as NULLs),
    // so the count below still tells whether FTS5 ranked every match.
    const ranked = this.statements
      .get(
        `SELECT ${chunkColumns("c")}, f.rank AS rank
         FROM (SELECT rowid, bm25(${FTS_TABLE}) AS rank FROM ${FTS_TABLE}
               WHERE ${FTS_TABLE} MATCH ? ORDER BY rank LIMIT ?) AS f
         LEFT JOIN chunks AS c ON c.rowid = f.rowid`,
      )
      .all(expression, fetch) as Array<RankedRow | (Partial<ChunkRow> & { rank: number })>;
    const accept = compileLabelFilter(filter);
    const kept = ranked
      .filter((row): row is RankedRow => row.id != null)
      .filter((row) => !accept || accept(row.tier, row.source))
      .sort((a, b) => a.rank - b.rank || compareRowOrder(a, b));
    let lastRank = Number.NEGATIVE_INFINITY; // a loop: `ranked` may be too long to spread
    for (const row of ranked) if (row.rank > lastRank) lastRank = row.rank;
    const kth = kept[k - 1];
    const exact = ranked.length < fetch || (kth !== undefined && kth.rank < lastRank);
    return exact ? kept.slice(0, k) : this.joined(expression, k, filter);
  }

  /** Rank with the filter and tie order applied in SQL (rowids first, then the k rows in full). */
  private joined(expression: string, k: number, filter: SearchFilter | undefined): RankedRow[] {
    const where = filterConditions(filter, "c");
    const ranked = this.statements
      .get(
        `SELECT c.rowid AS rowid, bm25(${FTS_TABLE}) AS rank
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

  private totalRows(stats: IndexStats): number {
    stats.total ??= this.statements.get("SELECT count(*) FROM chunks").pluck().get() as number;
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
