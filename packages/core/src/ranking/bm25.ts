import { termFrequencyWeight } from "../text/character-terms.js";

/**
 * engram's keyword ranking, the one definition every store follows: BM25 over the analysed terms
 * of each chunk, with FTS5's parameters (k1 1.2, b 0.75) and its IDF, a term's count multiplied by
 * core's `termFrequencyWeight` (single Han and kana characters count by presence), and the chunk's
 * length its number of terms. A chunk's score is, over the query's unique terms it holds, in
 * query order:
 *
 *   Σ idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·len / avgLen))
 *
 * where N counts the chunks holding any term and avgLen is their mean length. SQLite's FTS5
 * computes exactly this with `bm25()` (its `terms` and `chars` columns weighted 1 and
 * `CHARACTER_TERM_WEIGHT`), so its one-shot path and the in-memory index rank alike; stores that
 * cannot express it sit behind the in-memory index.
 */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** The smallest IDF a matched term gets (FTS5's clamp): a match always scores above nothing. */
export const MIN_IDF = 1e-6;

/**
 * The IDF of a term held by `docFreq` of `totalDocs` chunks: `ln((N − n + 0.5) / (n + 0.5))`,
 * at least {@link MIN_IDF}. A term in half the chunks or more weighs (almost) nothing: it tells
 * nothing apart. (Lucene's `ln(1 + …)`, which never comes near 0, was measured on SciFact, CMRC
 * 2018, LoCoMo and small workspaces and ranked no better: `bench/results/small-workspaces.md`.)
 */
export function bm25Idf(totalDocs: number, docFreq: number): number {
  const idf = Math.log((totalDocs - docFreq + 0.5) / (docFreq + 0.5));
  return idf > 0 ? idf : MIN_IDF;
}

/**
 * One term's share of a chunk's score: `idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLen))`, in
 * FTS5's order of operations (so both round alike). `weightedCount` is the term's count in the
 * chunk times its `termFrequencyWeight`.
 */
export function bm25Term(
  idf: number,
  weightedCount: number,
  length: number,
  avgLength: number,
): number {
  const { k1, b } = BM25;
  return (
    idf * ((weightedCount * (k1 + 1.0)) / (weightedCount + k1 * (1 - b + (b * length) / avgLength)))
  );
}

/** The weight a term's count is multiplied by (see `termFrequencyWeight`). */
export const countWeight = termFrequencyWeight;

/**
 * The query terms a search ranks with first: those held by fewer than half the chunks, which
 * carry (nearly) all the score; when that leaves none, or none but all, every term. Scoring the
 * long lists of common terms costs most of a query's time and changes no order beyond ~1e-5 of a
 * score (their IDF is {@link MIN_IDF}). A search that finds fewer than `k` chunks with these
 * ranks again with `all` terms ({@link rankWithCommonTerms}), so a chunk holding only common terms
 * is still found.
 */
export function rareTerms(
  terms: readonly string[],
  docFreq: (term: string) => number,
  totalDocs: number,
): readonly string[] {
  const rare = terms.filter((term) => 2 * docFreq(term) < totalDocs);
  return rare.length > 0 && rare.length < terms.length ? rare : terms;
}

/**
 * Rank with the {@link rareTerms} first, and with every term present when that finds fewer than
 * `k` hits: the one query-rewriting rule of keyword search, shared by every path that ranks.
 *
 * @param present The query's unique terms that some chunk holds.
 */
export function rankWithCommonTerms<T>(
  present: readonly string[],
  docFreq: (term: string) => number,
  totalDocs: number,
  k: number,
  rank: (terms: readonly string[]) => T[],
): T[] {
  if (!present.length) return [];
  const chosen = rareTerms(present, docFreq, totalDocs);
  if (chosen.length < present.length) {
    const hits = rank(chosen);
    if (hits.length >= k) return hits;
  }
  return rank(present);
}

/** The same rule for an asynchronous ranker. */
export async function rankWithCommonTermsAsync<T>(
  present: readonly string[],
  docFreq: (term: string) => number,
  totalDocs: number,
  k: number,
  rank: (terms: readonly string[]) => Promise<T[]>,
): Promise<T[]> {
  if (!present.length) return [];
  const chosen = rareTerms(present, docFreq, totalDocs);
  if (chosen.length < present.length) {
    const hits = await rank(chosen);
    if (hits.length >= k) return hits;
  }
  return rank(present);
}
