import {
  type ChunkRecord,
  compileFilter,
  compileLabelFilter,
  type Filterable,
  type SearchFilter,
  termFrequencyWeight,
} from "@engram/core/driver";
import { filterConditions } from "./filters.js";
import { BACKGROUND_LOAD_ROWS, type CopyLoad, FollowedCopy } from "./followed-copy.js";
import { BM25_WEIGHTS, countsDocument, termsDocument } from "./fts-document.js";
import { keysetPages } from "./keyset-pages.js";
import {
  type ChunkRow,
  chunkColumns,
  chunkRowsByRowid,
  compareRowOrder,
  readChunkLabels,
  tieOrder,
} from "./rows.js";
import { CHUNK_TERMS_TABLE, FTS_TABLE, TERM_IDS_TABLE } from "./schema.js";
import type { StatementCache } from "./statements.js";
import { TermCountEncoder, TermCountReader } from "./term-counts.js";
import { TermDictionary } from "./term-dictionary.js";
import { type Bm25Totals, type QueryTerm, TermPostings } from "./term-postings.js";

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

/**
 * Meta key of a counter every transaction that changes the terms increments (see
 * {@link FollowedCopy}).
 */
export const TERMS_GENERATION_META_KEY = "store-sqlite.terms-generation";

/** Reload the postings once chunks added and removed since loading pass this share of them. */
const MAX_CHURN = 0.25;

/** A change to the terms: a chunk added (with its labels) or removed, with its terms blob. */
interface TermOp {
  rowid: number;
  /** undefined: the chunk had no terms row (not since schema 5's upgrade); the copy cannot follow. */
  terms: Buffer | undefined;
  chunk?: Filterable;
}

/** Chunk rows read per statement while loading the postings. */
const LOAD_PAGE_ROWS = 1000;

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

/**
 * The chunks' terms: the FTS5 table, each chunk's term counts and the term ids, written together,
 * and BM25 search over them. Searches after the first few (`loadAfter`) are answered from
 * {@link TermPostings}, an in-memory copy of the postings that scores exactly as FTS5 does, when
 * it fits `memoryBytes`; otherwise FTS5 answers.
 */
export class FullTextIndex {
  /**
   * Chunk count and the document frequencies looked up so far, valid while the database's data
   * version and our own write count hold (`key`).
   */
  #stats: IndexStats | undefined;
  #writes = 0;
  #searches = 0;
  readonly #dictionary: TermDictionary;
  readonly #encoder = new TermCountEncoder();
  readonly #copy: FollowedCopy<TermPostings, TermOp>;

  /**
   * @param memoryBytes Largest in-memory postings ({@link TermPostings.bytes}) searched from
   *   memory; larger ones, or 0, leave every search to FTS5.
   * @param loadAfter Searches answered by FTS5 before the postings are loaded.
   * @param backgroundAbove Chunks above which the postings load in the background (FTS5 answers
   *   meanwhile); a test may lower it.
   */
  constructor(
    private readonly statements: StatementCache,
    private readonly memoryBytes = 0,
    private readonly loadAfter = 1,
    backgroundAbove = BACKGROUND_LOAD_ROWS,
  ) {
    statements.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${VOCAB_TABLE} USING fts5vocab(main, '${FTS_TABLE}', 'row')`,
    );
    this.#dictionary = new TermDictionary(statements);
    this.#copy = new FollowedCopy(
      statements,
      TERMS_GENERATION_META_KEY,
      (postings, ops) => {
        for (const { rowid, terms, chunk } of ops) {
          if (!terms) return false;
          if (chunk) postings.add(rowid, terms, chunk);
          else postings.remove(rowid, terms);
        }
        return postings.churn <= MAX_CHURN && postings.bytes <= this.memoryBytes;
      },
      backgroundAbove,
    );
  }

  /** Resolves when no load of the postings runs in the background. */
  settled(): Promise<void> {
    return this.#copy.settled();
  }

  /** Stop a background load (the connection is closing). */
  cancel(): void {
    this.#copy.cancel();
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
      const blob = blobs[i] as Buffer;
      if (chunk.terms.length > 0) insertFts.run(rowid, ...termsDocument(chunk.terms));
      insertCounts.run(rowid, blob);
      this.#copy.log({
        rowid: Number(rowid),
        terms: blob,
        chunk: { path: chunk.path, tier: chunk.tier, source: chunk.source },
      });
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
      this.#copy.log({ rowid: Number(rowid), terms });
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
    this.#copy.reset();
    this.#writes++;
  }

  /** Call after the write transaction committed. */
  committed(): void {
    this.#copy.committed();
  }

  /** Call after the write transaction rolled back: its changes never happened. */
  rolledBack(): void {
    this.#dictionary.rolledBack();
    this.#copy.rolledBack();
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
   *
   * The in-memory postings and FTS5 give the same rows, order and scores: the same terms are
   * chosen the same way, and the scores are computed alike (see {@link TermPostings}).
   */
  search(terms: readonly string[], k: number, filter: SearchFilter | undefined): RankedRow[] {
    const unique = [...new Set(terms)].filter((term) => term.length > 0);
    if (!unique.length) return [];
    const fromMemory = this.#searches++ >= this.loadAfter && this.memoryBytes > 0;
    // One read transaction: the postings, their statistics and the chunk rows agree.
    return this.statements.db.transaction(() => {
      const postings = fromMemory ? this.#copy.current(() => this.#load()) : undefined;
      return postings
        ? this.#searchMemory(postings, unique, k, filter)
        : this.#searchFts(unique, k, filter);
    })();
  }

  #searchFts(unique: readonly string[], k: number, filter: SearchFilter | undefined): RankedRow[] {
    const stats = this.stats();
    const df = this.documentFrequencies(stats, unique);
    const present = unique.filter((term) => (df.get(term) ?? 0) > 0);
    return withoutCommonTerms(
      present,
      (term) => df.get(term) ?? 0,
      this.totalRows(stats),
      k,
      (chosen) => this.query(chosen, k, filter),
    );
  }

  #searchMemory(
    postings: TermPostings,
    unique: readonly string[],
    k: number,
    filter: SearchFilter | undefined,
  ): RankedRow[] {
    const ids = this.#dictionary.lookup(unique);
    const df = (term: string) => postings.df(ids.get(term) ?? 0);
    const present = unique.filter((term) => ids.has(term) && df(term) > 0);
    const accept = compileFilter(filter);
    return withoutCommonTerms(present, df, postings.rows, k, (chosen) => {
      const hits = postings.top(this.#queryTerms(postings, chosen, ids), k, accept);
      const score = new Map(hits.map((hit) => [hit.rowid, hit.score]));
      return chunkRowsByRowid(
        this.statements,
        hits.map((hit) => hit.rowid),
      )
        .map((row) => ({ ...row, rank: -(score.get(row.rowid) as number) }))
        .sort((a, b) => a.rank - b.rank || compareRowOrder(a, b))
        .slice(0, k);
    });
  }

  /**
   * The chosen terms' ids with FTS5's IDF, `log((N − n + 0.5) / (n + 0.5))` clamped at 1e-6, and
   * their column's weight.
   * SQLite computes the logarithm: it is the C library's `log`, as in FTS5, where JavaScript's
   * `Math.log` differs in the last bit for ~5 % of inputs.
   */
  #queryTerms(
    postings: TermPostings,
    terms: readonly string[],
    ids: ReadonlyMap<string, number>,
  ): QueryTerm[] {
    const termIds = terms.map((term) => ids.get(term) as number);
    const idfs = this.statements
      .get("SELECT key, ln((? - value + 0.5) / (value + 0.5)) FROM json_each(?)")
      .raw()
      .all(postings.bm25Rows, JSON.stringify(termIds.map((id) => postings.df(id)))) as Array<
      [number, number]
    >;
    const query = termIds.map((id, i) => ({
      id,
      idf: 0,
      weight: termFrequencyWeight(terms[i] as string),
    }));
    for (const [i, idf] of idfs) (query[i] as QueryTerm).idf = idf > 0 ? idf : 1e-6;
    return query;
  }

  /**
   * Begin loading every chunk's postings: the steps read the totals, labels and terms blobs (a
   * page at a time) and give the postings, or undefined when they would take more than the memory
   * budget or some chunk has no terms row (none should since schema 5's upgrade gave every chunk
   * one).
   */
  #load(): CopyLoad<TermPostings> | undefined {
    if (this.memoryBytes <= 0) return undefined;
    const statements = this.statements;
    const memoryBytes = this.memoryBytes;
    const count = (sql: string) => statements.get(sql).pluck().get() as number;
    const chunks = count("SELECT count(*) FROM chunks");
    return {
      rows: chunks,
      steps: (function* () {
        // One scan: every chunk must have its terms, and the blobs' size estimates the postings'
        // (both are varint pairs per chunk and term).
        const stored = statements
          .get(`SELECT count(*) AS n, total(length(terms)) AS bytes FROM ${CHUNK_TERMS_TABLE}`)
          .get() as { n: number; bytes: number };
        if (stored.n !== chunks) return undefined;
        const maxTermId = count(`SELECT coalesce(max(id), 0) FROM ${TERM_IDS_TABLE}`);
        if (TermPostings.estimateBytes(chunks, maxTermId, stored.bytes) > memoryBytes) {
          return undefined;
        }
        const totals = readBm25Totals(statements);
        if (!totals) return undefined;
        yield;
        const labels = yield* readChunkLabels(statements);
        if (labels.rowids.length !== chunks)
          throw new Error("the chunks changed between the reads");
        const page = statements.get(
          `SELECT rowid, terms FROM ${CHUNK_TERMS_TABLE} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
        );
        const postings = yield* TermPostings.build(chunks, maxTermId, totals, labels, () =>
          keysetPages<[number, Buffer]>(page, LOAD_PAGE_ROWS),
        );
        return postings.bytes <= memoryBytes ? postings : undefined;
      })(),
    };
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
         FROM (SELECT rowid, bm25(${FTS_TABLE}, ${BM25_WEIGHTS}) AS rank FROM ${FTS_TABLE}
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

/**
 * Rank with the terms held in fewer than half the rows first (see {@link FullTextIndex.search});
 * with every term when that leaves none, or finds fewer than `k` rows.
 */
function withoutCommonTerms(
  present: readonly string[],
  df: (term: string) => number,
  total: number,
  k: number,
  rank: (terms: readonly string[]) => RankedRow[],
): RankedRow[] {
  if (!present.length) return [];
  const weighted = present.filter((term) => 2 * df(term) < total);
  if (weighted.length && weighted.length < present.length) {
    const rows = rank(weighted);
    if (rows.length >= k) return rows;
  }
  return rank(present);
}

/**
 * FTS5's totals ({@link Bm25Totals}) from its averages record (`<table>_data` id 1: the row count,
 * then the token count of each column, as SQLite varints); `tokens` sums the columns, as
 * `bm25()`'s document lengths do. Zeros while the table is empty. Undefined when the record is not
 * two or more varints of up to 8 bytes each (another FTS5 layout): the postings are then not used.
 */
export function readBm25Totals(statements: StatementCache): Bm25Totals | undefined {
  const block = statements.get(`SELECT block FROM ${FTS_TABLE}_data WHERE id = 1`).pluck().get() as
    | Buffer
    | undefined;
  if (!block?.length) return { rows: 0, tokens: 0 }; // none yet, or emptied by 'delete-all'
  const values: number[] = [];
  let value = 0;
  let bytes = 0;
  for (const byte of block) {
    value = value * 0x80 + (byte & 0x7f);
    if (++bytes > 8) return undefined;
    if (byte < 0x80) {
      values.push(value);
      value = 0;
      bytes = 0;
    }
  }
  const [rows, ...columns] = values;
  if (rows === undefined || columns.length === 0 || bytes !== 0) return undefined;
  let tokens = 0;
  for (const count of columns) tokens += count;
  return { rows, tokens };
}
