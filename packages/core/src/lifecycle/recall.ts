import { sha256Hex } from "../text/hash.js";
import type { Tier } from "../tier.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { readStateJson, STATE_FILES, statePath, writeStateJson } from "./state.js";

/** How often one stretch of a file was recalled. */
export interface RecallEntry {
  path: string;
  startLine: number;
  endLine: number;
  /** Hashes (12 hex digits) of the distinct queries that returned it, at most {@link MAX_QUERIES}. */
  queries: string[];
  /** Search results it appeared in (repeats of a query included). */
  hits: number;
  /** `memory_get` reads that covered it. */
  gets: number;
  firstAt: string;
  lastAt: string;
}

/** `.engram/lifecycle/recall.json`. */
export interface RecallFile {
  version: 1;
  entries: Record<string, RecallEntry>;
}

/**
 * `.engram/lifecycle/recall-queries.json`: the text of recent queries by hash, so consolidation's
 * recall guard can run them again against the planned workspace. It stays on this machine with
 * the index (`.engram/`), never in the memory files.
 */
export interface RecallQueriesFile {
  version: 1;
  queries: Record<string, { text: string; lastAt: string }>;
}

/** Query texts kept (the least recently used are dropped beyond this). */
const MAX_QUERY_TEXTS = 2_000;

/** Tiers whose recalls are counted. */
const RECALLED_TIERS: ReadonlySet<Tier> = new Set(["short", "long"]);

/** Distinct queries kept per entry (enough for any sensible `minRecalls`). */
const MAX_QUERIES = 50;
/** Entries kept (the least recently recalled are dropped beyond this). */
const MAX_ENTRIES = 5_000;
/** Pending events that trigger a write. */
const FLUSH_EVERY = 25;

/**
 * Counts search hits and reads per stretch of a file: short-term stretches become promotion
 * candidates, curated ones are what consolidation's recall guard protects. Events are batched in
 * memory and written on {@link flush} (after every 25 events, and on close), merged under a lock
 * with what other processes wrote. Entries name queries by hash; the texts of the most recent
 * {@link MAX_QUERY_TEXTS} queries are kept apart (`recall-queries.json`) for the recall guard.
 * Only short- and long-term files are counted.
 */
export class RecallLog {
  readonly #ws: string;
  readonly #now: () => Date;
  #pending: Array<{
    kind: "hit" | "get";
    path: string;
    startLine: number;
    endLine: number;
    /** The query, normalised (hashed when written). */
    query?: string;
    at: string;
  }> = [];
  /** Texts of recent queries, by normalised query. */
  #texts = new Map<string, { text: string; lastAt: string }>();
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
    // Hashed when written: a one-shot search answers before the process's first SHA-256.
    const q = normalizedQuery(query);
    const at = this.#now().toISOString();
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
    this.#pending.push({ kind: "get", path, startLine, endLine, at: this.#now().toISOString() });
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
    const events = this.#pending;
    const texts = this.#texts;
    this.#pending = [];
    this.#texts = new Map();
    await withWorkspaceLock(this.#ws, "lifecycle-recall", async () => {
      if (texts.size > 0) {
        await writeQueryTexts(
          this.#ws,
          new Map([...texts].map(([q, text]) => [hashOfNormalized(q), text])),
        );
      }
      const file = (await readRecall(this.#ws)) ?? { version: 1, entries: {} };
      for (const e of events) {
        const key = `${e.path}#${e.startLine}-${e.endLine}`;
        const entry = file.entries[key] ?? {
          path: e.path,
          startLine: e.startLine,
          endLine: e.endLine,
          queries: [],
          hits: 0,
          gets: 0,
          firstAt: e.at,
          lastAt: e.at,
        };
        file.entries[key] = entry;
        if (e.kind === "get") entry.gets++;
        else {
          entry.hits++;
          const hash = e.query === undefined ? undefined : hashOfNormalized(e.query);
          if (hash && !entry.queries.includes(hash) && entry.queries.length < MAX_QUERIES)
            entry.queries.push(hash);
        }
        if (e.at > entry.lastAt) entry.lastAt = e.at;
      }
      const keys = Object.keys(file.entries);
      if (keys.length > MAX_ENTRIES) {
        keys.sort((a, b) =>
          (file.entries[a]?.lastAt ?? "") < (file.entries[b]?.lastAt ?? "") ? -1 : 1,
        );
        for (const k of keys.slice(0, keys.length - MAX_ENTRIES)) delete file.entries[k];
      }
      await writeStateJson(statePath(this.#ws, STATE_FILES.recall), file);
    });
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

function hashOfNormalized(normalized: string): string {
  return sha256Hex(normalized).slice(0, 12);
}

async function writeQueryTexts(
  ws: string,
  texts: ReadonlyMap<string, { text: string; lastAt: string }>,
): Promise<void> {
  const abs = statePath(ws, STATE_FILES.recallQueries);
  const file = (await readStateJson<RecallQueriesFile>(abs)) ?? { version: 1, queries: {} };
  for (const [hash, t] of texts) file.queries[hash] = t;
  const keys = Object.keys(file.queries);
  if (keys.length > MAX_QUERY_TEXTS) {
    keys.sort((a, b) =>
      (file.queries[a]?.lastAt ?? "") < (file.queries[b]?.lastAt ?? "") ? -1 : 1,
    );
    for (const k of keys.slice(0, keys.length - MAX_QUERY_TEXTS)) delete file.queries[k];
  }
  await writeStateJson(abs, file);
}

/** The kept query texts by hash (empty before the first search). */
export async function readQueryTexts(ws: string): Promise<Map<string, string>> {
  const file = await readStateJson<RecallQueriesFile>(statePath(ws, STATE_FILES.recallQueries));
  return new Map(Object.entries(file?.queries ?? {}).map(([h, q]) => [h, q.text]));
}

/** The recall counts written so far (null before the first). */
export function readRecall(ws: string): Promise<RecallFile | null> {
  return readStateJson<RecallFile>(statePath(ws, STATE_FILES.recall));
}
