import type { StoreHit } from "../store/records.js";
import type { Candidate } from "./types.js";

/** Weights after normalising to sum 1. */
export function normalizeWeights(
  vectorWeight: number,
  textWeight: number,
): {
  vector: number;
  text: number;
} {
  const sum = vectorWeight + textWeight;
  return sum > 0
    ? { vector: vectorWeight / sum, text: textWeight / sum }
    : { vector: 0.5, text: 0.5 };
}

/** True for chunks whose vectors are owed (they cannot appear in the vector list). */
export type OwedCheck = (hit: StoreHit) => boolean;

const noneOwed: OwedCheck = () => false;

/** How much of each side a query's fused score takes (they sum to 1). */
export interface FusionWeights {
  vector: number;
  text: number;
}

/** How many of each list's best chunks the agreement between the two lists is measured on. */
export const AGREEMENT_DEPTH = 20;

/**
 * How far the two lists agree on this query: the share of the keyword list's best
 * `min(AGREEMENT_DEPTH, both lengths)` chunks that are also among the vector list's best as many,
 * from 0 (nothing in common) to 1 (the same chunks).
 */
export function listAgreement(
  vectorHits: readonly StoreHit[],
  textHits: readonly StoreHit[],
  depth = AGREEMENT_DEPTH,
): number {
  const k = Math.min(depth, vectorHits.length, textHits.length);
  if (k === 0) return 0;
  const top = new Set(textHits.slice(0, k).map((h) => h.chunk.id));
  let shared = 0;
  for (const hit of vectorHits.slice(0, k)) if (top.has(hit.chunk.id)) shared++;
  return shared / k;
}

/**
 * This query's weights. `fixed`: the configured split as it is. `agreement` (the default): the
 * vector side gets its configured share times the square of {@link listAgreement} (at least a
 * millionth of it), the keyword
 * side the rest. A model whose neighbours have nothing in common with the keyword hits — a weak
 * model, or a query whose words it does not know — cannot push them aside; one that finds the same
 * chunks the keywords do reaches its configured share. Measured on SciFact with two weak models
 * (USE-lite, averaged word vectors), every fixed share above 0 ranked below keywords alone, and the
 * lists' agreement told the queries where vectors helped from those where they found nothing
 * (`bench/results/fusion.md`).
 */
export function queryWeights(
  configured: FusionWeights,
  weighting: "agreement" | "fixed",
  vectorHits: readonly StoreHit[],
  textHits: readonly StoreHit[],
): FusionWeights {
  // One list empty: the other answers alone (a query no keyword matches is the vectors' to answer).
  if (!textHits.length) return { vector: 1, text: 0 };
  if (!vectorHits.length) return { vector: 0, text: 1 };
  if (weighting === "fixed") return configured;
  // Never exactly 0, so chunks only the vectors found keep their cosine order among themselves
  // (1e-6 reorders no keyword hits: their relative BM25 scores differ by more).
  const vector = configured.vector * Math.max(listAgreement(vectorHits, textHits) ** 2, 1e-6);
  return { vector, text: 1 - vector };
}

/**
 * Cosines scaled to [0, 1] over the vector list (its best 1, its worst 0; all equal: 1), by chunk
 * id. Each model's cosines have their own range — averaged word vectors sit at 0.8–0.95 for any
 * two texts, sentence encoders at 0.2–0.6 — so only their spread within the list says anything.
 */
function scaledCosines(hits: readonly StoreHit[]): Map<string, number> {
  const value = (h: StoreHit) => Math.max(0, h.score);
  let best = Number.NEGATIVE_INFINITY;
  let worst = Number.POSITIVE_INFINITY;
  for (const hit of hits) {
    best = Math.max(best, value(hit));
    worst = Math.min(worst, value(hit));
  }
  const span = best - worst;
  return new Map(hits.map((h) => [h.chunk.id, span > 0 ? (value(h) - worst) / span : 1]));
}

/**
 * BM25 relative to the list's best hit (as keyword mode scores it): 0 is "no match", so every
 * keyword hit keeps a score above a chunk only the vectors found.
 */
function relativeBm25(hits: readonly StoreHit[]): Map<string, number> {
  const top = hits[0]?.score ?? 0;
  return new Map(hits.map((h) => [h.chunk.id, top > 0 ? h.score / top : 0]));
}

/**
 * Weighted fusion: `score = wt · bm25 / best bm25 + wv · cosine'` with cosines min-max scaled over
 * the vector list (absent from a list: 0 for that side), and this query's weights (see
 * {@link queryWeights}). A chunk whose vector is owed has no cosine to give: it scores its keyword
 * side alone, on the same 0–1 scale, instead of counting as dissimilar.
 */
export function fuseWeighted(
  vectorHits: readonly StoreHit[],
  textHits: readonly StoreHit[],
  weights: FusionWeights,
  owed: OwedCheck = noneOwed,
): Candidate[] {
  const cosine = scaledCosines(vectorHits);
  const bm25 = relativeBm25(textHits);
  const byId = new Map<string, Candidate>();
  for (const hit of vectorHits) {
    byId.set(hit.chunk.id, {
      chunk: hit.chunk,
      score: weights.vector * (cosine.get(hit.chunk.id) as number),
      scores: { vector: hit.score },
    });
  }
  for (const hit of textHits) {
    const text = bm25.get(hit.chunk.id) as number;
    const existing = byId.get(hit.chunk.id);
    if (existing) {
      existing.score += weights.text * text;
      existing.scores.text = hit.score;
    } else if (owed(hit)) {
      byId.set(hit.chunk.id, {
        chunk: hit.chunk,
        score: text,
        scores: { text: hit.score },
        owed: true,
      });
    } else {
      byId.set(hit.chunk.id, {
        chunk: hit.chunk,
        score: weights.text * text,
        scores: { text: hit.score },
      });
    }
  }
  return [...byId.values()];
}

/**
 * Reciprocal rank fusion with this query's weights (see {@link queryWeights}):
 * `Σ w / (k + rank + 1)` over the lists, divided by its maximum (`Σ w / (k + 1)`, first in every
 * list), so scores fall in [0, 1] like the other modes. A chunk whose vector is owed is divided by
 * the maximum of the keyword list alone.
 *
 * Why the seed's fixed 0.7 / 0.3 collapsed (SciFact nDCG@10 0.39–0.43 against 0.78 for keywords):
 * with k = 60 a list's whole top 40 spans a factor of 1.6 (1/61 … 1/100), less than the 0.7 / 0.3
 * ratio of 2.3, so the keyword list's first chunk scored below the vector list's 80th — the
 * ranking was the vector list's, whatever the keywords said. Agreement weighting gives a weak
 * model's list almost no weight, and a smaller k (10: the 24th of a default pool of 24 scores a
 * third of the first, not three quarters) keeps a chunk's rank in its list worth more than merely
 * appearing in both.
 */
export function fuseRrf(
  vectorHits: readonly StoreHit[],
  textHits: readonly StoreHit[],
  weights: FusionWeights,
  k: number,
  owed: OwedCheck = noneOwed,
): Candidate[] {
  const lists: Array<[readonly StoreHit[], number, "vector" | "text"]> = [
    [vectorHits, weights.vector, "vector"],
    [textHits, weights.text, "text"],
  ];
  const max = lists.reduce((sum, [hits, w]) => (hits.length ? sum + w / (k + 1) : sum), 0);
  const byId = new Map<string, Candidate>();
  for (const [hits, weight, side] of lists) {
    hits.forEach((hit, rank) => {
      const contribution = weight / (k + rank + 1) / (max || 1);
      const existing = byId.get(hit.chunk.id);
      if (existing) {
        existing.score += contribution;
        existing.scores[side] = hit.score;
      } else if (side === "text" && owed(hit) && weight > 0) {
        byId.set(hit.chunk.id, {
          chunk: hit.chunk,
          score: weight / (k + rank + 1) / (weight / (k + 1)),
          scores: { text: hit.score },
          owed: true,
        });
      } else {
        byId.set(hit.chunk.id, {
          chunk: hit.chunk,
          score: contribution,
          scores: { [side]: hit.score },
        });
      }
    });
  }
  return [...byId.values()];
}

/** Keyword-only scores: BM25 divided by the best BM25 in the pool (the top hit scores 1). */
export function keywordOnly(textHits: readonly StoreHit[]): Candidate[] {
  const top = textHits[0]?.score ?? 0;
  return textHits.map((hit) => ({
    chunk: hit.chunk,
    score: top > 0 ? hit.score / top : 0,
    scores: { text: hit.score },
  }));
}

/** Vector-only scores: cosine similarity (negative counts as 0). */
export function vectorOnly(vectorHits: readonly StoreHit[]): Candidate[] {
  return vectorHits.map((hit) => ({
    chunk: hit.chunk,
    score: Math.max(0, hit.score),
    scores: { vector: hit.score },
  }));
}

/** Best first; ties by path, then start line, so results are deterministic. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    b.score - a.score ||
    (a.chunk.path < b.chunk.path ? -1 : a.chunk.path > b.chunk.path ? 1 : 0) ||
    a.chunk.startLine - b.chunk.startLine
  );
}
