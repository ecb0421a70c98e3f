import { termFrequencyWeight } from "@engram/core";

/**
 * The BM25 variant wink-bm25-text-search computes, written out so the store can score the same
 * way where wink cannot (fewer than 3 documents): per query term,
 *
 *   idf    = ln((N − n + 0.5) / (n + 0.5) + k)
 *   weight = tf·(k1 + 1) / (k1·((1 − b) + b·len/avgLen) + tf) · idf, rounded to 9 decimals
 *
 * with N documents, n of them holding the term, tf its count in the document (times core's
 * `termFrequencyWeight`: a single Han or kana character counts by presence) and len the
 * document's term count. The `+ k` (k = 1) keeps every IDF positive, so every match scores > 0.
 * A document's score is the sum of its matching terms' weights, added in query-term order.
 */
export const BM25_PARAMS = { k1: 1.2, b: 0.75, k: 1 } as const;

/** Decimals wink keeps of each term weight (`consolidate(9)`, its maximum). */
export const WEIGHT_PRECISION = 9;

/** The IDF of a term held by `docFreq` of `totalDocs` documents. */
export function idf(totalDocs: number, docFreq: number): number {
  return Math.log((totalDocs - docFreq + 0.5) / (docFreq + 0.5) + BM25_PARAMS.k);
}

/** One term's weight in one document, exactly as wink's `consolidate` computes it. */
export function termWeight(
  termFreq: number,
  docLength: number,
  avgLength: number,
  termIdf: number,
): number {
  const { k1, b } = BM25_PARAMS;
  const normalisation = 1 - b + b * (docLength / avgLength);
  const weight = Math.abs((termFreq * (k1 + 1)) / (k1 * normalisation + termFreq)) * termIdf;
  return Math.sign(termFreq) * Number(weight.toFixed(WEIGHT_PRECISION));
}

/** A document for {@link scoreDirectly}: its analysed terms (repeats kept). */
export interface TermsDocument {
  readonly terms: readonly string[];
}

/**
 * Score `docs` against the unique `queryTerms` without an index: a document matches if it holds
 * any query term. `accept` restricts which documents are scored (they still count towards N and
 * the average length, as in wink). Calls `hit` once per matching, accepted document.
 */
export function scoreDirectly<D extends TermsDocument>(
  docs: readonly D[],
  queryTerms: readonly string[],
  hit: (doc: D, score: number) => void,
  accept?: (doc: D) => boolean,
): void {
  if (docs.length === 0 || queryTerms.length === 0) return;
  const counts = docs.map((doc) => countTerms(doc.terms));
  let totalLength = 0;
  for (const doc of docs) totalLength += doc.terms.length;
  const avgLength = totalLength / docs.length;
  const idfs = queryTerms.map((term) => {
    let docFreq = 0;
    for (const count of counts) if (count.has(term)) docFreq++;
    return idf(docs.length, docFreq);
  });
  const weights = queryTerms.map(termFrequencyWeight);
  docs.forEach((doc, d) => {
    if (accept && !accept(doc)) return;
    const count = counts[d] as Map<string, number>;
    let score: number | undefined;
    queryTerms.forEach((term, t) => {
      const tf = count.get(term);
      if (tf === undefined) return;
      const weighted = tf * (weights[t] as number);
      score = termWeight(weighted, doc.terms.length, avgLength, idfs[t] as number) + (score ?? 0);
    });
    if (score !== undefined) hit(doc, score);
  });
}

function countTerms(terms: readonly string[]): Map<string, number> {
  const count = new Map<string, number>();
  for (const term of terms) count.set(term, (count.get(term) ?? 0) + 1);
  return count;
}
