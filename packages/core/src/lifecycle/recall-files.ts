import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { assertWorkspace } from "../workspace/layout.js";
import { tryWorkspaceLock } from "../workspace/lock.js";
import { readStateJson, STATE_FILES, statePath, writeStateJson } from "./state.js";

/**
 * How the recall log lives on disk. A flush must stay cheap however long the log has grown (it
 * runs at the end of every one-shot `engram search`), so it never rewrites the counts: it adds one
 * small batch file to `.engram/lifecycle/recall-events/` (written beside and renamed into place,
 * no lock). Readers fold the unfolded batches over `recall.json` and `recall-queries.json`. Once
 * {@link COMPACT_AT} batches have gathered, the flush that sees them folds them into the two files
 * under the `lifecycle-recall` lock and deletes them; `recall.json` names the batches it has
 * counted (`folded`), so a reader racing a compaction, or a compaction that crashed before its
 * deletes, never counts a batch twice.
 */

/** One search hit or read, as a batch records it. */
export interface RecallEvent {
  kind: "hit" | "get";
  path: string;
  startLine: number;
  endLine: number;
  /** Hash of the query (hits only). */
  query?: string;
  at: string;
}

/** A query's text, by hash, with when it was last asked. */
export type QueryTexts = Record<string, { text: string; lastAt: string }>;

/** One flush: `.engram/lifecycle/recall-events/<time>-<pid>-<random>.json`. */
interface RecallBatch {
  version: 1;
  events: RecallEvent[];
  texts: QueryTexts;
}

/** How often one stretch of a file was recalled. */
export interface RecallEntry {
  path: string;
  startLine: number;
  endLine: number;
  /** Hashes (12 hex digits) of the distinct queries that returned it, at most 50. */
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
  /** Batch files already counted in `entries` (a compaction's, until it has deleted them). */
  folded?: string[];
}

/**
 * `.engram/lifecycle/recall-queries.json`: the text of recent queries by hash, so consolidation's
 * recall guard can run them again against the planned workspace. It stays on this machine with
 * the index (`.engram/`), never in the memory files.
 */
export interface RecallQueriesFile {
  version: 1;
  queries: QueryTexts;
}

/** Distinct queries kept per entry (enough for any sensible `minRecalls`). */
const MAX_QUERIES = 50;
/** Entries kept (the least recently recalled are dropped beyond this). */
const MAX_ENTRIES = 5_000;
/** Query texts kept (the least recently used are dropped beyond this). */
const MAX_QUERY_TEXTS = 2_000;
/** Batch files that make a flush fold them into `recall.json` (readers read fewer than this). */
export const COMPACT_AT = 64;
/** Reads started again when a compaction deleted a batch between listing and reading it. */
const READ_ATTEMPTS = 5;

/**
 * Add one batch (no lock, no fsync: counts are a hint, and a batch torn by a crash is skipped by
 * readers and deleted by the next compaction). Folds the batches into the files once
 * {@link COMPACT_AT} have gathered, unless another process is doing it.
 */
export async function appendRecallBatch(
  ws: string,
  events: readonly RecallEvent[],
  texts: QueryTexts,
): Promise<void> {
  await assertWorkspace(ws); // never re-create the folder of a workspace that was removed
  const dir = batchDir(ws);
  await mkdir(dir, { recursive: true });
  // Named by time first: listed in order, they are folded in about the order they were written.
  const stamp = Date.now().toString(36).padStart(9, "0");
  const name = `${stamp}-${process.pid.toString(36)}-${randomBytes(4).toString("hex")}.json`;
  // Not `writeFileAtomic`: that fsyncs and loads a library, at the end of every one-shot search.
  const temp = path.join(dir, `.${name}.tmp`);
  const batch: RecallBatch = { version: 1, events: [...events], texts };
  await writeFile(temp, JSON.stringify(batch));
  await rename(temp, path.join(dir, name));
  if ((await batchNames(ws)).length >= COMPACT_AT) await compactRecall(ws);
}

/** Counts this process has read, per workspace, with the batches they hold and `recall.json`'s stamp. */
interface ReadCounts {
  stamp: string;
  applied: Set<string>;
  counts: RecallFile;
}
/** The last counts read per workspace (a search that blends relevance reads them every time). */
const lastRead = new Map<string, ReadCounts>();
/** Workspaces whose counts are kept (a process rarely searches more). */
const KEPT_WORKSPACES = 4;

/**
 * The recall counts, every batch folded in (null before the first flush). While `recall.json` is
 * unchanged, only the batches added since this process last read are read and folded in: the
 * object returned is that shared copy, to read and not to change.
 */
export async function readRecall(ws: string): Promise<RecallFile | null> {
  const key = path.resolve(ws);
  const last = lastRead.get(key);
  if (last) {
    const [stamp, names] = await Promise.all([recallStamp(ws), batchNames(ws)]);
    // A compaction replaces recall.json (a new stamp): then everything is read again.
    const read =
      stamp === last.stamp
        ? await readBatches(
            ws,
            names.filter((n) => !last.applied.has(n)),
          )
        : "raced";
    if (read !== "raced") {
      // Checked again after the wait: a read running beside this one may have folded some.
      let folded = false;
      for (const { name, batch } of read) {
        if (last.applied.has(name)) continue;
        last.applied.add(name);
        if (!batch) continue;
        foldEvents(last.counts, batch.events);
        folded = true;
      }
      // Nothing new (most reads of a long-lived process): no pass over the entries.
      if (folded) dropOldest(last.counts.entries, MAX_ENTRIES);
      return last.counts;
    }
  }
  // Stamped before recall.json is read: if a compaction replaces it meanwhile, the next read
  // sees another stamp and reads everything again.
  const stamp = await recallStamp(ws);
  const { recall, batches, names } = await readFolded(ws);
  lastRead.delete(key);
  if (!recall && batches.length === 0) return null;
  const counts: RecallFile = { version: 1, entries: recall?.entries ?? {} };
  for (const b of batches) foldEvents(counts, b.events);
  dropOldest(counts.entries, MAX_ENTRIES);
  lastRead.set(key, { stamp, applied: new Set(names), counts });
  for (const old of lastRead.keys()) {
    if (lastRead.size <= KEPT_WORKSPACES) break;
    lastRead.delete(old);
  }
  return counts;
}

/** The kept query texts with every batch folded in. */
export async function readQueryTextsFolded(ws: string): Promise<QueryTexts> {
  const { batches } = await readFolded(ws);
  const queries =
    (await readStateJson<RecallQueriesFile>(statePath(ws, STATE_FILES.recallQueries)))?.queries ??
    {};
  for (const b of batches) foldTexts(queries, b.texts);
  dropOldest(queries, MAX_QUERY_TEXTS);
  return queries;
}

/** `recall.json`, the batches it has not counted yet, and every batch listed (counted or not). */
async function readFolded(
  ws: string,
): Promise<{ recall: RecallFile | null; batches: RecallBatch[]; names: string[] }> {
  for (let attempt = 1; ; attempt++) {
    // Listed before `recall.json` is read: a batch a compaction deletes after the listing is
    // either named in the `recall.json` read next (counted there) or missing when read (retry).
    const names = await batchNames(ws);
    const recall = await readStateJson<RecallFile>(statePath(ws, STATE_FILES.recall));
    const folded = new Set(recall?.folded ?? []);
    const read = await readBatches(
      ws,
      names.filter((n) => !folded.has(n)),
    );
    if (read !== "raced") return { recall, batches: batchesOf(read), names };
    // still racing after several tries: the counts as last folded
    if (attempt >= READ_ATTEMPTS) return { recall, batches: [], names: [...folded] };
  }
}

/**
 * Fold every batch into `recall.json` and `recall-queries.json` and delete the batches, under the
 * `lifecycle-recall` lock; returns at once when another process holds it (that one is folding).
 */
export async function compactRecall(ws: string): Promise<void> {
  const release = await tryWorkspaceLock(ws, "lifecycle-recall");
  if (!release) return;
  try {
    const names = await batchNames(ws);
    if (names.length === 0) return;
    const recallAbs = statePath(ws, STATE_FILES.recall);
    const recall = (await readStateJson<RecallFile>(recallAbs)) ?? { version: 1, entries: {} };
    const folded = new Set(recall.folded ?? []);
    // Only this process deletes batches now (it holds the lock), so none can vanish meanwhile.
    const read = await readBatches(
      ws,
      names.filter((n) => !folded.has(n)),
    );
    if (read === "raced") return;
    const batches = batchesOf(read);
    const queriesAbs = statePath(ws, STATE_FILES.recallQueries);
    const queries =
      (await readStateJson<RecallQueriesFile>(queriesAbs))?.queries ?? ({} as QueryTexts);
    for (const b of batches) {
      foldEvents(recall, b.events);
      foldTexts(queries, b.texts);
    }
    dropOldest(recall.entries, MAX_ENTRIES);
    dropOldest(queries, MAX_QUERY_TEXTS);
    // Texts first: folding them twice (a crash before recall.json names the batches) is harmless.
    if (batches.some((b) => Object.keys(b.texts).length > 0))
      await writeStateJson(queriesAbs, { version: 1, queries } satisfies RecallQueriesFile);
    await writeStateJson(recallAbs, { version: 1, entries: recall.entries, folded: names });
    const dir = batchDir(ws);
    await Promise.all(names.map((n) => rm(path.join(dir, n), { force: true })));
  } finally {
    await release();
  }
}

/** Count `events` into `file` (the caller caps it with {@link dropOldest}). */
function foldEvents(file: RecallFile, events: readonly RecallEvent[]): void {
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
      if (e.query && !entry.queries.includes(e.query) && entry.queries.length < MAX_QUERIES)
        entry.queries.push(e.query);
    }
    if (e.at < entry.firstAt) entry.firstAt = e.at;
    if (e.at > entry.lastAt) entry.lastAt = e.at;
  }
}

/** Keep each query's latest use (the caller caps them with {@link dropOldest}). */
function foldTexts(into: QueryTexts, texts: QueryTexts): void {
  for (const [hash, t] of Object.entries(texts)) {
    const had = into[hash];
    if (!had || t.lastAt >= had.lastAt) into[hash] = t;
  }
}

/**
 * Keep the `keep` most recently used records (the least recently used dropped). A log at its cap
 * is over it by a few records after each fold: those are picked in one pass, not by sorting all.
 */
function dropOldest(records: Record<string, { lastAt: string }>, keep: number): void {
  const keys = Object.keys(records);
  const excess = keys.length - keep;
  if (excess <= 0) return;
  // The `excess` oldest seen so far, oldest first.
  const oldest: Array<{ at: string; key: string }> = [];
  for (const key of keys) {
    const at = records[key]?.lastAt ?? "";
    const last = oldest[excess - 1];
    if (last && at >= last.at) continue;
    let lo = 0;
    let hi = oldest.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((oldest[mid] as { at: string }).at <= at) lo = mid + 1;
      else hi = mid;
    }
    oldest.splice(lo, 0, { at, key });
    if (oldest.length > excess) oldest.pop();
  }
  for (const { key } of oldest) delete records[key];
}

/** Changes whenever `recall.json` is replaced ("none" while there is none). */
async function recallStamp(ws: string): Promise<string> {
  const st = await stat(statePath(ws, STATE_FILES.recall)).catch(() => null);
  return st ? `${st.ino}:${st.mtimeMs}:${st.size}` : "none";
}

function batchDir(ws: string): string {
  return statePath(ws, STATE_FILES.recallEvents);
}

/** Batch files in the order they were written (a temp file being written is not one yet). */
async function batchNames(ws: string): Promise<string[]> {
  const names = await readdir(batchDir(ws)).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort();
}

/** A batch file read: null when it was torn by a crash (its counts are lost: they were a hint). */
type ReadBatch = { name: string; batch: RecallBatch | null };

/** The batches named, in order; "raced" when one was deleted meanwhile. */
async function readBatches(ws: string, names: readonly string[]): Promise<ReadBatch[] | "raced"> {
  const dir = batchDir(ws);
  const texts = await Promise.all(
    names.map((n) =>
      readFile(path.join(dir, n), "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw error;
      }),
    ),
  );
  if (texts.includes(null)) return "raced";
  return names.map((name, i) => ({ name, batch: parseBatch(texts[i] as string) }));
}

function parseBatch(text: string): RecallBatch | null {
  try {
    const batch = JSON.parse(text) as RecallBatch;
    return batch?.version === 1 && Array.isArray(batch.events) ? batch : null;
  } catch {
    return null; // torn by a crash; the next compaction deletes it
  }
}

function batchesOf(read: readonly ReadBatch[]): RecallBatch[] {
  return read.flatMap((r) => (r.batch ? [r.batch] : []));
}
