import { statSync } from "node:fs";
import path from "node:path";
import type { EngramConfig } from "../config/schema.js";
import { IMPORTANT_RE } from "../lifecycle/candidates.js";
import { readRecall } from "../lifecycle/recall.js";
import type { StoredChunk } from "../store/records.js";
import type { Clock } from "../workspace/clock.js";
import type { RelevanceSignals, RelevanceWeights } from "./relevance.js";

const DATED = /(\d{4})-(\d{2})-(\d{2})\.md$/;

/**
 * The relevance signals of chunks of a workspace, as of `now`: days since the update (the date in
 * a daily log's name, else the file's mtime), how often searches returned or `memory_get` read its
 * lines (the recall log), and whether it is marked important.
 */
export async function relevanceSignals(
  workspace: string,
  now: Date,
): Promise<(chunk: StoredChunk) => RelevanceSignals> {
  const recall = await readRecall(workspace).catch(() => null);
  const byPath = new Map<string, Array<{ startLine: number; endLine: number; count: number }>>();
  for (const e of Object.values(recall?.entries ?? {})) {
    const list = byPath.get(e.path) ?? [];
    list.push({ startLine: e.startLine, endLine: e.endLine, count: e.queries.length + e.gets });
    byPath.set(e.path, list);
  }
  const updated = new Map<string, number | null>();
  const updatedAt = (p: string): number | null => {
    if (!updated.has(p)) {
      const m = DATED.exec(p);
      let at: number | null = null;
      if (m) at = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
      else {
        try {
          at = statSync(path.isAbsolute(p) ? p : path.join(workspace, ...p.split("/"))).mtimeMs;
        } catch {
          at = null;
        }
      }
      updated.set(p, at);
    }
    return updated.get(p) ?? null;
  };
  return (chunk) => {
    const at = updatedAt(chunk.path);
    let accessCount = 0;
    for (const e of byPath.get(chunk.path) ?? []) {
      if (e.startLine <= chunk.endLine && chunk.startLine <= e.endLine) accessCount += e.count;
    }
    return {
      daysSinceUpdate: at === null ? null : Math.max(0, (now.getTime() - at) / 86_400_000),
      accessCount,
      important: IMPORTANT_RE.test(chunk.text),
    };
  };
}

/**
 * The relevance part of a search (see `SearcherParts.relevance`), or undefined when the query and
 * the config leave it out (`options.relevance`, else `search.relevance` when enabled).
 */
export async function searchRelevance(
  workspace: string,
  config: EngramConfig,
  options: { relevance?: number; now?: Date },
  clock: Clock,
): Promise<
  | {
      signalsOf: (chunk: StoredChunk) => RelevanceSignals;
      weight: number;
      weights: RelevanceWeights;
    }
  | undefined
> {
  const weight =
    options.relevance ?? (config.search.relevance.enabled ? config.search.relevance.weight : 0);
  if (!(weight > 0)) return undefined;
  const signalsOf = await relevanceSignals(workspace, options.now ?? clock.now());
  return { signalsOf, weight: Math.min(1, weight), weights: config.lifecycle.candidates };
}
