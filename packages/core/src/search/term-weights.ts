/**
 * How much each query term says about a line, for choosing which lines a snippet shows: the BM25
 * inverse document frequency of the term over the *lines* of the result chunks,
 * `ln(1 + (N − df + 0.5) / (df + 0.5))`. A term on nearly every line (a speaker's name in a chat
 * log, the project name in its notes) weighs little; a rare one decides the window.
 *
 * @param texts texts of the result chunks (the statistics are local to this query's results)
 * @param queryTerms analysed query terms
 * @param termsOf the analyzer used for the query, so matches mean the same as in BM25
 */
export function lineTermWeights(
  texts: readonly string[],
  queryTerms: ReadonlySet<string>,
  termsOf: (text: string) => string[],
): Map<string, number> {
  const df = new Map<string, number>();
  let lines = 0;
  for (const text of texts) {
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      lines++;
      for (const term of new Set(termsOf(line))) {
        if (queryTerms.has(term)) df.set(term, (df.get(term) ?? 0) + 1);
      }
    }
  }
  const weights = new Map<string, number>();
  for (const term of queryTerms) {
    const n = df.get(term) ?? 0;
    weights.set(term, Math.log(1 + (lines - n + 0.5) / (n + 0.5)));
  }
  return weights;
}
