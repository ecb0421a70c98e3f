import type { Candidate } from "./types.js";

/**
 * Jaccard similarity of two term sets: shared terms over all terms (0 when both are empty).
 */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const term of small) if (large.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * Maximal marginal relevance: pick `k` of `ranked` (best first) one at a time, each time the one
 * maximising `λ · relevance − (1 − λ) · (highest similarity to one already picked)`, where
 * relevance is the score divided by the best score. λ = 1 keeps the ranking; lower values trade
 * relevance for results that say different things (no two near-copies of the same lines).
 *
 * @param similarity similarity in [0, 1] of two candidates (e.g. {@link jaccard} of their terms)
 */
export function mmrSelect(
  ranked: readonly Candidate[],
  k: number,
  lambda: number,
  similarity: (a: Candidate, b: Candidate) => number,
): Candidate[] {
  const top = ranked[0]?.score ?? 0;
  const rest = ranked.map((c) => ({ c, rel: top > 0 ? c.score / top : 0, maxSim: 0 }));
  const picked: Candidate[] = [];
  while (picked.length < k && rest.length) {
    let best = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    rest.forEach((r, i) => {
      const value = lambda * r.rel - (1 - lambda) * r.maxSim;
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    });
    const [chosen] = rest.splice(best, 1);
    if (!chosen) break;
    picked.push(chosen.c);
    for (const r of rest) r.maxSim = Math.max(r.maxSim, similarity(r.c, chosen.c));
  }
  return picked;
}

/**
 * {@link mmrSelect} with Jaccard similarity over the analysed terms of the chunks' text: the
 * similarity every store supports, since hits carry no vectors.
 */
export function mmrByTerms(
  ranked: readonly Candidate[],
  k: number,
  lambda: number,
  termsOf: (text: string) => string[],
): Candidate[] {
  if (ranked.length <= 1 || lambda >= 1) return ranked.slice(0, k);
  const sets = new Map<Candidate, Set<string>>();
  const termSet = (c: Candidate) => {
    let set = sets.get(c);
    if (!set) {
      set = new Set(termsOf(c.chunk.text));
      sets.set(c, set);
    }
    return set;
  };
  return mmrSelect(ranked, k, lambda, (a, b) => jaccard(termSet(a), termSet(b)));
}
