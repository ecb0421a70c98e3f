import { sha256Hex } from "../text/hash.js";
import type { Tier } from "../tier.js";
import { appendRecallBatch, type RecallEvent, readQueryTextsFolded } from "./recall-files.js";

export {
  type RecallEntry,
  type RecallFile,
  type RecallQueriesFile,
  readRecall,
} from "./recall-files.js";

/** Tiers whose recalls are counted. */
const RECALLED_TIERS: ReadonlySet<Tier> = new Set(["short", "long"]);

/** Pending events that trigger a write. */
const FLUSH_EVERY = 25;

/**
 * Counts search hits and reads per stretch of a file: short-term stretches become promotion
 * candidates, curated ones are what consolidation's recall guard protects. Events are batched in
 * memory and written on {@link flush} (after every 25 events, and on close) as one small batch
 * file, which costs the same however long the log is (`recall-files.ts` says how batches are
 * folded). Entries name queries by hash; the texts of the most recent 2,000 queries are kept apart
 * (`recall-queries.json`) for the recall guard. Only short- and long-term files are counted.
 */
export class RecallLog {
  readonly #ws: string;
  readonly #now: () => Date;
  /**
   * Events not written yet, each as {@link flush} writes it but for two fields it completes:
   * `query` holds the normalised query until it is hashed, and the time is epoch milliseconds
   * until it is formatted. A one-shot search answers before the process's first SHA-256 and its
   * first `toISOString` (~0.7 ms, the first call in a process).
   */
  #pending: Array<Omit<RecallEvent, "at"> & { at: number }> = [];
  /** Texts of recent queries, by normalised query, with when (epoch ms) they were last asked. */
  #texts = new Map<string, { text: string; lastAt: number }>();
  #flushing: Promise<void> = Promise.resolve();

  constructor(workspace: string, now: () => Date = () => new Date()) {
    this.#ws = workspace;
    this.#now = now;
  }

  /**
   * Record the short- and long-term results a query returned (short-term stretches feed promotion
   * candidates; long-term ones tell the audit what is still recalled).
   */
  noteSearch(
    query: string,
    results: ReadonlyArray<{ path: string; startLine: number; endLine: number; tier: Tier }>,
    options: {
      /**
       * False when the query's text must not be kept (it found a sealed file: its words would
       * then be readable in `.engram/` without the key). Its hits are still counted, by hash.
       */
      keepText?: boolean;
    } = {},
  ): void {
    // Hashed and formatted when written (see #pending).
    const q = normalizedQuery(query);
    const at = this.#now().getTime();
    if (options.keepText !== false && results.some((r) => RECALLED_TIERS.has(r.tier)))
      this.#texts.set(q, { text: query, lastAt: at });
    for (const r of results) {
      if (!RECALLED_TIERS.has(r.tier)) continue;
      this.#pending.push({
        kind: "hit",
        path: r.path,
        startLine: r.startLine,
        endLine: r.endLine,
        query: q,
        at,
      });
    }
    this.#maybeFlush();
  }

  /** Record a read of `path` lines `startLine..endLine` (short- and long-term files only). */
  noteGet(path: string, startLine: number, endLine: number, tier: Tier): void {
    if (!RECALLED_TIERS.has(tier)) return;
    this.#pending.push({ kind: "get", path, startLine, endLine, at: this.#now().getTime() });
    this.#maybeFlush();
  }

  /** Write pending events now. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing
      .then(() => this.#write())
      .catch(() => {
        // counts are a hint: a failed write must never fail a search or a read
      });
    return this.#flushing;
  }

  #maybeFlush(): void {
    if (this.#pending.length >= FLUSH_EVERY) void this.flush();
  }

  async #write(): Promise<void> {
    if (this.#pending.length === 0) return;
    const pending = this.#pending;
    const texts = this.#texts;
    this.#pending = [];
    this.#texts = new Map();
    const events: RecallEvent[] = pending.map(({ query, at, ...e }) => ({
      ...e,
      ...(query === undefined ? {} : { query: hashOfNormalized(query) }),
      at: isoTime(at),
    }));
    await appendRecallBatch(
      this.#ws,
      events,
      Object.fromEntries(
        [...texts].map(([q, { text, lastAt }]) => [
          hashOfNormalized(q),
          { text, lastAt: isoTime(lastAt) },
        ]),
      ),
    );
  }
}

/** The 12-hex-digit hash a query is recorded under (NFKC, trimmed, lower case). */
export function queryHash(query: string): string {
  return hashOfNormalized(normalizedQuery(query));
}

/** What a query's hash is taken of: NFKC, trimmed, lower case (equal texts, equal hashes). */
function normalizedQuery(query: string): string {
  return query.normalize("NFKC").trim().toLowerCase();
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function hashOfNormalized(normalized: string): string {
  return sha256Hex(normalized).slice(0, 12);
}

/** The kept query texts by hash (empty before the first search). */
export async function readQueryTexts(ws: string): Promise<Map<string, string>> {
  const texts = await readQueryTextsFolded(ws);
  return new Map(Object.entries(texts).map(([h, q]) => [h, q.text]));
}
