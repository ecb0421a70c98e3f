import type { StatementCache } from "./connection.js";
import { TERM_IDS_TABLE } from "./schema.js";

/**
 * Term ids a connection keeps in memory at most (~100 bytes each: 10 MB). A corpus's terms are
 * Zipf-distributed, so the first ones met, kept, are most of the occurrences; past the cap, terms
 * not kept are looked up in the table once per write (at 100k chunks and ~275k terms the whole
 * dictionary in memory put the sync's peak RSS up by ~40 MB).
 */
const MAX_CACHED_IDS = 100_000;

/**
 * Unknown terms (or ids) in one write above which the whole table may be read into the cache
 * instead of looked up: more than this many, and at least a {@link BULK_SHARE} of the table.
 */
const BULK_UNKNOWN = 256;

/**
 * The share of the table a write's unknown terms must reach for reading it whole to pay: a cold
 * sync's batches do, a one-shot edit does not. In a new process at 10k chunks, reading the 75k ids
 * took ~220 ms (and the collections after it), looking up 300 terms 7–20 ms: `engram add` to a
 * 600-word daily log spent ~150 ms of its ~0.55 s reading the table.
 */
const BULK_SHARE = 1 / 8;

/**
 * The {@link TERM_IDS_TABLE} numbering seen from one connection, cached in memory. Ids are never
 * renumbered or removed (not even by `reset`), so an id once read stays right whoever wrote since.
 *
 * While the cache is complete (it holds every id up to the table's largest, as after reading the
 * whole table or starting from an empty one) a term it lacks is new, and gets the next id without
 * a query; that keeps a cold sync at one map lookup per term occurrence. Otherwise unknown terms
 * are looked up, and numbered when missing, in one statement per write.
 */
export class TermDictionary {
  #ids = new Map<string, number>();
  /** The same cache by id (a sparse array: the ids cached). */
  #terms: string[] = [];
  /** Ids looked up by the open write that did not fit the cache. */
  #extra = new Map<string, number>();
  /** The largest id the cache covers completely; undefined while it does not. */
  #complete: number | undefined;
  /** Ids numbered by the open write transaction, inserted by {@link flush}. */
  #numbered: string[] = [];
  #next = 0;

  /** @param maxCached Ids kept in memory at most (a test may lower it). */
  constructor(
    private readonly statements: StatementCache,
    private readonly maxCached = MAX_CACHED_IDS,
  ) {}

  /** Call at the start of a write, before {@link id}: catches up with other connections' ids. */
  begin(): void {
    this.#extra.clear();
    const max = this.#max();
    this.#next = max;
    if (max === 0) {
      this.#ids.clear();
      this.#terms = [];
      this.#complete = 0;
    } else if (this.#complete !== undefined && max > this.#complete) {
      const rows = this.statements
        .get(`SELECT term, id FROM ${TERM_IDS_TABLE} WHERE id > ?`)
        .raw()
        .all(this.#complete) as Array<[string, number]>;
      this.#remember(rows);
    }
  }

  /** Ids known in memory (a subset: {@link id} finds, or numbers, the others). */
  get known(): ReadonlyMap<string, number> {
    return this.#ids;
  }

  /** The id of `term`: undefined when the cache is incomplete and lacks it (see {@link resolve}). */
  id(term: string): number | undefined {
    const id = this.#ids.get(term);
    if (id !== undefined) return id;
    if (this.#complete === undefined) return this.#extra.get(term);
    if (this.#ids.size >= this.maxCached) {
      this.#complete = undefined; // full: unknown terms go through the table from now on
      return undefined;
    }
    const next = ++this.#next;
    this.#ids.set(term, next);
    this.#terms[next] = term;
    this.#numbered.push(term);
    this.#complete = next;
    return next;
  }

  /**
   * Give every one of `terms` an id: read the whole table when they are many, also for its size
   * ({@link BULK_SHARE}), and it fits the cache; else look them up (numbering the missing ones) in
   * one statement.
   */
  resolve(terms: ReadonlySet<string>): void {
    this.flush();
    const max = this.#max();
    if (this.#bulk(terms.size, max) && max + terms.size <= this.maxCached) {
      this.#readAll();
      for (const term of terms) this.id(term);
      return;
    }
    const json = JSON.stringify([...terms]);
    this.statements
      .get(
        `INSERT INTO ${TERM_IDS_TABLE} (term) SELECT value FROM json_each(?) WHERE true
         ON CONFLICT (term) DO NOTHING`,
      )
      .run(json);
    this.#next = this.#max();
    const rows = this.#select(json);
    this.#remember(rows);
    for (const [term, id] of rows) if (!this.#ids.has(term)) this.#extra.set(term, id);
    for (const term of terms) {
      if (this.id(term) === undefined) throw new Error(`no id for the term "${term}"`);
    }
  }

  /** Insert the ids numbered since {@link begin} (in the write transaction). */
  flush(): void {
    if (!this.#numbered.length) return;
    const first = (this.#ids.get(this.#numbered[0] as string) as number) - 1;
    this.statements
      .get(`INSERT INTO ${TERM_IDS_TABLE} (id, term) SELECT ? + key + 1, value FROM json_each(?)`)
      .run(first, JSON.stringify(this.#numbered));
    this.#numbered = [];
  }

  /**
   * The term of each of `ids` (ids of the table, read in this transaction; call {@link begin}
   * first): from the cache, else the whole table when many are missing (as {@link resolve} counts
   * many) and it fits the cache, else one statement.
   */
  termsOf(ids: ReadonlySet<number>): (id: number) => string | undefined {
    const missing = [...ids].filter((id) => this.#terms[id] === undefined);
    if (!missing.length) return (id) => this.#terms[id];
    const max = this.#max();
    if (this.#bulk(missing.length, max) && max <= this.maxCached) {
      this.#readAll();
      return (id) => this.#terms[id];
    }
    const rows = this.statements
      .get(`SELECT term, id FROM ${TERM_IDS_TABLE} WHERE id IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(JSON.stringify(missing)) as Array<[string, number]>;
    this.#remember(rows);
    const read = new Map(rows.map(([term, id]) => [id, term]));
    return (id) => this.#terms[id] ?? read.get(id);
  }

  /** The write transaction rolled back: ids it numbered were never assigned. */
  rolledBack(): void {
    this.#ids.clear();
    this.#terms = [];
    this.#extra.clear();
    this.#complete = undefined;
    this.#numbered = [];
  }

  /** Keep these ids, as many as the cap allows (the cache is incomplete from then on). */
  #remember(rows: ReadonlyArray<[string, number]>): void {
    for (const [term, id] of rows) {
      if (this.#ids.size >= this.maxCached) {
        this.#complete = undefined;
        break;
      }
      this.#ids.set(term, id);
      this.#terms[id] = term;
    }
    if (this.#complete !== undefined) this.#complete = this.#next;
  }

  /** Cache the whole table (it fits): complete from then on. */
  #readAll(): void {
    const all = this.statements.get(`SELECT term, id FROM ${TERM_IDS_TABLE}`).raw().all() as Array<
      [string, number]
    >;
    this.#ids = new Map(all);
    this.#terms = [];
    for (const [term, id] of all) this.#terms[id] = term;
    this.#complete = this.#next;
  }

  /** Whether `unknown` terms or ids are many enough to read the whole table (largest id `max`). */
  #bulk(unknown: number, max: number): boolean {
    return unknown > BULK_UNKNOWN && unknown >= max * BULK_SHARE;
  }

  #max(): number {
    return this.statements
      .get(`SELECT coalesce(max(id), 0) FROM ${TERM_IDS_TABLE}`)
      .pluck()
      .get() as number;
  }

  #select(json: string): Array<[string, number]> {
    return this.statements
      .get(`SELECT term, id FROM ${TERM_IDS_TABLE} WHERE term IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(json) as Array<[string, number]>;
  }
}
