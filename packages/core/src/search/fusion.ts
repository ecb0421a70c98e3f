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

/**
 * Weighted fusion (the seeds' formula): `score = wv · cosine + wt · 1 / (1 + rank)`, where `rank`
 * is the 0-based position in the BM25 list. Rank, not the raw BM25 value, because BM25 has no
 * fixed scale; negative cosine counts as 0. A chunk whose vector is owed has no cosine to give:
 * its keyword part is divided by `wt`, the share of the side that could vote, so it lands on the
 * same 0–1 scale instead of below every threshold.
 */
export function fuseWeighted(
  vectorHits: readonly StoreHit[],
  textHits: readonly StoreHit[],
  weights: { vector: number; text: number },
  owed: OwedCheck = noneOwed,
): Candidate[] {
  const byId = new Map<string, Candidate>();
  for (const hit of vectorHits) {
    const vector = hit.score;
    byId.set(hit.chunk.id, {
      chunk: hit.chunk,
      score: weights.vector * Math.max(0, vector),
      scores: { vector },
    });
  }
  textHits.forEach((hit, rank) => {
    const contribution = weights.text * (1 / (1 + rank));
    const existing = byId.get(hit.chunk.id);
    if (existing) {
      existing.score += contribution;
      existing.scores.text = hit.score;
    } else if (owed(hit) && weights.text > 0) {
      byId.set(hit.chunk.id, {
        chunk: hit.chunk,
        score: contribution / weights.text,
        scores: { text: hit.score },
        owed: true,
      });
    } else {
      byId.set(hit.chunk.id, {
        chunk: hit.chunk,
        score: contribution,
        scores: { text: hit.score },
      });
    }
  });
  return [...byId.values()];
}

/**
 * Reciprocal rank fusion: `Σ w / (k + rank + 1)` over the lists, divided by its maximum
 * (`Σ w / (k + 1)`, first in every list), so scores fall in [0, 1] like the other modes. A chunk
 * whose vector is owed is divided by the maximum of the keyword list alone.
 */
export function fuseRrf(
  vectorHits: readonly StoreHit[],
  textHits: readonly StoreHit[],
  weights: { vector: number; text: number },
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
