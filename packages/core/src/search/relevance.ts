import type { StoredChunk } from "../store/records.js";
import type { Candidate } from "./types.js";

/** What the seed's relevance formula reads about a stretch of memory. */
export interface RelevanceSignals {
  /** Days since it was last updated (null: unknown — no recency term). */
  daysSinceUpdate: number | null;
  /** How often it was recalled: distinct queries that returned it + reads of it. */
  accessCount: number;
  /** Marked important (`#important`, `!important`, `[important]`, ⭐). */
  important: boolean;
}

/** The formula's weights (`lifecycle.candidates`). */
export interface RelevanceWeights {
  recencyWeight: number;
  frequencyWeight: number;
  importanceWeight: number;
}

/**
 * The three-tier seed's relevance score:
 * `recency_weight · 1/days_since_update + frequency_weight · access_count + importance_weight ·
 * user_marked_importance` (days counted from 1, so today and yesterday both give 1). Promotion
 * candidates are ranked by it; search can blend it in (`search.relevance`).
 */
export function relevanceScore(s: RelevanceSignals, w: RelevanceWeights): number {
  const recency = s.daysSinceUpdate === null ? 0 : 1 / Math.max(1, s.daysSinceUpdate);
  return (
    w.recencyWeight * recency +
    w.frequencyWeight * s.accessCount +
    w.importanceWeight * (s.important ? 1 : 0)
  );
}

/**
 * `candidates` re-scored with the relevance formula blended in:
 * `(1 − weight) · score + weight · r / (1 + r)` where `r` is {@link relevanceScore} (squashed into
 * [0, 1) so it shares the score's scale). With `weight` 0 nothing changes.
 */
export function applyRelevance(
  candidates: readonly Candidate[],
  signalsOf: (chunk: StoredChunk) => RelevanceSignals,
  weight: number,
  weights: RelevanceWeights,
): Candidate[] {
  if (weight <= 0) return [...candidates];
  return candidates.map((c) => {
    const r = relevanceScore(signalsOf(c.chunk), weights);
    return { ...c, score: (1 - weight) * c.score + weight * (r / (1 + r)) };
  });
}
