import type { ChunkRecord } from "../driver/records.js";
import { normalizeForDedupe } from "../lifecycle/dedupe.js";
import { hostAnalyzer, hostTierOf, type LifecycleHost } from "../lifecycle/host.js";
import { readQueryTexts, readRecall } from "../lifecycle/recall.js";
import { chunkRecords } from "../sync/chunk-records.js";
import { readUtf8 } from "../workspace/read.js";
import { scanWorkspace } from "../workspace/scan.js";
import { type LineRef, overlaps } from "./citations.js";
import { ChunkRanker } from "./guard-index.js";

/** Curated lines a plan removes or rewrites, with what replaces them. */
export interface AffectedLines {
  ref: LineRef;
  /** The lines' text before the change. */
  text: string;
  /** The operation changing them. */
  opId: string;
  /** The text that takes their place, when there is one (UPDATE, SUPERSEDE, MERGE). */
  replacement?: string;
}

/** A query that found the lines before and would not find their content after. */
export interface GuardFailure {
  query: string;
  line: LineRef;
  text: string;
  opId: string;
}

/**
 * The recall guard's verdict. Queries of the recall log that found affected lines are run again,
 * by keywords (BM25 over the workspace's chunks, every tier including the archive), against the
 * workspace as it is and as the plan would leave it. A query counts when it finds the lines now;
 * it passes when, after the change, one of its top `search.maxResults` chunks still holds their
 * content — in place, merged into another entry, or in the archive.
 */
export interface GuardResult {
  /** Queries run against both states. */
  checked: number;
  passed: number;
  failed: GuardFailure[];
  /**
   * Recalls that could not be checked: the query's text is no longer kept, or keywords alone do
   * not find the lines today (a vector-only hit).
   */
  unchecked: number;
}

/** The guard's verdict when nothing recalled is affected. */
export const GUARD_CLEAR: GuardResult = { checked: 0, passed: 0, failed: [], unchecked: 0 };

/**
 * Run the recall guard (see {@link GuardResult}) for `affected` lines, with `changes` the planned
 * content of every file the plan writes (null: removed).
 */
export async function recallGuard(
  host: LifecycleHost,
  affected: readonly AffectedLines[],
  changes: ReadonlyMap<string, string | null>,
): Promise<GuardResult> {
  if (affected.length === 0) return { ...GUARD_CLEAR, failed: [] };
  await host.recall?.flush();
  const recall = await readRecall(host.workspace);
  const pairs: Array<{ hash: string; a: AffectedLines }> = [];
  const seen = new Set<string>();
  for (const e of Object.values(recall?.entries ?? {})) {
    for (const a of affected) {
      if (!overlaps(e, a.ref)) continue;
      for (const hash of e.queries) {
        const key = `${hash}\u0000${a.opId}\u0000${a.ref.startLine}`;
        if (seen.has(key)) continue;
        seen.add(key);
        pairs.push({ hash, a });
      }
    }
  }
  if (pairs.length === 0) return { ...GUARD_CLEAR, failed: [] };
  const texts = await readQueryTexts(host.workspace);
  const analyzer = hostAnalyzer(host);
  const { before, after } = await chunkStates(host, changes);
  const pre = new ChunkRanker(before);
  const post = new ChunkRanker(after);
  const k = host.config.search.maxResults;
  const result: GuardResult = { checked: 0, passed: 0, failed: [], unchecked: 0 };
  for (const { hash, a } of pairs) {
    const query = texts.get(hash);
    if (query === undefined) {
      result.unchecked++;
      continue;
    }
    const terms = analyzer.queryTerms?.(query) ?? analyzer.terms(query);
    if (!pre.top(terms, k).some((c) => overlaps(c, a.ref))) {
      result.unchecked++;
      continue;
    }
    result.checked++;
    const wanted = [
      normalizeForDedupe(a.text),
      a.replacement ? normalizeForDedupe(a.replacement) : "",
    ].filter(Boolean);
    const held = post.top(terms, k).some((c) => {
      const hay = normalizeForDedupe(c.text);
      return wanted.some((w) => hay.includes(w));
    });
    if (held) result.passed++;
    else result.failed.push({ query, line: a.ref, text: a.text, opId: a.opId });
  }
  return result;
}

/** The workspace's chunks as they are, and as they would be with `changes`. */
async function chunkStates(
  host: LifecycleHost,
  changes: ReadonlyMap<string, string | null>,
): Promise<{ before: ChunkRecord[]; after: ChunkRecord[] }> {
  const analyzer = hostAnalyzer(host);
  const tierOf = hostTierOf(host);
  const chunk = (path: string, text: string) =>
    chunkRecords(
      { path, source: "memory", tier: tierOf(path) },
      text,
      analyzer,
      host.config.chunking,
    );
  const { files } = await scanWorkspace({ workspace: host.workspace });
  const before: ChunkRecord[] = [];
  const after: ChunkRecord[] = [];
  // As a sync reads them: what it would not index (too large, not UTF-8) is left out. (And read
  // synchronously: one awaited `readFile` after another cost ~0.2 ms a file, 0.5–0.7 s for the
  // 2,728 files of a 10k-chunk workspace, against 50–90 ms.)
  const maxBytes = host.config.sync.maxFileBytes;
  for (const f of files) {
    if (f.path.startsWith("/")) continue;
    const text = await readUtf8(f.absPath, { maxBytes }).then(
      (read) => read.text,
      () => null,
    );
    if (text === null) continue;
    const chunks = chunk(f.path, text);
    before.push(...chunks);
    if (!changes.has(f.path)) after.push(...chunks);
  }
  for (const [path, text] of changes) {
    if (text !== null && /\.md$/i.test(path)) after.push(...chunk(path, text));
  }
  return { before, after };
}
