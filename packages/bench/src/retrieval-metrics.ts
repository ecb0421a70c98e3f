/** Graded relevance judgements of one query: document id → grade (> 0 is relevant). */
export type Judgements = ReadonlyMap<string, number>;

/** nDCG@k with exponential gain (2^grade − 1), as BEIR reports it. */
export function ndcgAt(ranked: readonly string[], judged: Judgements, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    dcg += (2 ** (judged.get(id) ?? 0) - 1) / Math.log2(i + 2);
  });
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Share of relevant documents found in the top k. */
export function recallAt(ranked: readonly string[], judged: Judgements, k: number): number {
  const relevant = [...judged].filter(([, g]) => g > 0).map(([id]) => id);
  if (!relevant.length) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

/** Reciprocal rank of the first relevant document within the top k (0 if none). */
export function mrrAt(ranked: readonly string[], judged: Judgements, k: number): number {
  const i = ranked.slice(0, k).findIndex((id) => (judged.get(id) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}
