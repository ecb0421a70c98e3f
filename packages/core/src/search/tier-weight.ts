import type { Tier } from "../tier.js";
import type { Candidate } from "./types.js";

/** Score multiplier per tier (each in [0, 1]). */
export type TierWeights = Readonly<Record<Tier, number>>;

/**
 * Default tier weights: long 1.0, mid 0.97, short 0.94, archive 0.9. The gaps are small on
 * purpose: they decide between results that score about the same (a curated long-term fact beats
 * the daily-log line it was distilled from), but a clearly better match in a lower tier still
 * wins — a 0.94-weighted short-term hit scoring 0.9 (→ 0.846) stays above a long-term one scoring
 * 0.8.
 */
export const DEFAULT_TIER_WEIGHTS: TierWeights = Object.freeze({
  long: 1,
  mid: 0.97,
  short: 0.94,
  archive: 0.9,
});

/**
 * Named presets of `search.tierWeights`:
 *
 * - `curated-first` (the default, {@link DEFAULT_TIER_WEIGHTS}): long 1, mid 0.97, short 0.94,
 *   archive 0.9 — a curated fact beats the log line it came from.
 * - `three-tier`: the three-tier seed's retrieval priority, short > mid > long > archive
 *   (short 1, mid 0.97, long 0.94, archive 0.9) — the current session's context first, then
 *   active projects, then the knowledge base, the archive last (and only when asked for).
 *
 * Either way the gaps are small: they decide between results that score about the same.
 */
export const TIER_WEIGHT_PRESETS = Object.freeze({
  "curated-first": DEFAULT_TIER_WEIGHTS,
  "three-tier": Object.freeze({ short: 1, mid: 0.97, long: 0.94, archive: 0.9 }) as TierWeights,
});

/** A name of {@link TIER_WEIGHT_PRESETS}. */
export type TierWeightPreset = keyof typeof TIER_WEIGHT_PRESETS;

/**
 * `candidates` with each score multiplied by the weight of its chunk's tier (a tier missing from
 * `weights` keeps its score). Returns new candidates; the input is not changed.
 */
export function applyTierWeights(
  candidates: readonly Candidate[],
  weights: Partial<Record<Tier, number>> = DEFAULT_TIER_WEIGHTS,
): Candidate[] {
  return candidates.map((c) => {
    const weight = weights[c.chunk.tier] ?? 1;
    return weight === 1 ? c : { ...c, score: c.score * weight };
  });
}
