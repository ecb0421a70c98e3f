import type { RerankOutcome } from "./rerank.js";

/** Meta key where the rerank stage's counts are kept between processes. */
export const RERANK_STATS_META_KEY = "engram.rerankStats";

/** Latencies kept for the percentiles (the most recent). */
const RECENT = 100;

/** What the rerank stage has cost and how it behaved, over every process of this index. */
export interface RerankStats {
  /** Searches that asked the reranker. */
  calls: number;
  /** Searches answered in its order. */
  applied: number;
  /** Searches that kept the fused order (deadline, failure, bad answer). */
  skipped: number;
  /** Documents sent, over all calls (what per-document APIs bill). */
  documents: number;
  /** Over the most recent 100 calls, in ms; null before the first. */
  latency: { p50Ms: number; p95Ms: number; lastMs: number } | null;
  /** The last skip: when and why. */
  lastSkipped?: { at: string; reason: string };
}

interface StoredStats {
  calls: number;
  applied: number;
  skipped: number;
  documents: number;
  recentMs: number[];
  lastSkipped?: { at: string; reason: string };
}

/** The stats as stored under {@link RERANK_STATS_META_KEY}, with `outcome` counted in. */
export function countRerank(
  stored: string | null | undefined,
  outcome: RerankOutcome,
  now: Date,
): string {
  const s = parse(stored);
  s.calls++;
  if (outcome.applied) s.applied++;
  else {
    s.skipped++;
    s.lastSkipped = { at: now.toISOString(), reason: outcome.skipped ?? "skipped" };
  }
  s.documents += outcome.candidates;
  s.recentMs = [...s.recentMs, outcome.ms].slice(-RECENT);
  return JSON.stringify(s);
}

/** {@link RerankStats} from what is stored (zeros when nothing is). */
export function rerankStatsOf(stored: string | null | undefined): RerankStats {
  const s = parse(stored);
  const sorted = [...s.recentMs].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
  return {
    calls: s.calls,
    applied: s.applied,
    skipped: s.skipped,
    documents: s.documents,
    latency: sorted.length
      ? { p50Ms: at(50), p95Ms: at(95), lastMs: s.recentMs.at(-1) as number }
      : null,
    ...(s.lastSkipped ? { lastSkipped: s.lastSkipped } : {}),
  };
}

function parse(stored: string | null | undefined): StoredStats {
  const empty: StoredStats = { calls: 0, applied: 0, skipped: 0, documents: 0, recentMs: [] };
  if (!stored) return empty;
  try {
    const v = JSON.parse(stored) as Partial<StoredStats>;
    const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
    return {
      calls: n(v.calls),
      applied: n(v.applied),
      skipped: n(v.skipped),
      documents: n(v.documents),
      recentMs: Array.isArray(v.recentMs) ? v.recentMs.filter((x) => typeof x === "number") : [],
      ...(v.lastSkipped ? { lastSkipped: v.lastSkipped } : {}),
    };
  } catch {
    return empty;
  }
}
