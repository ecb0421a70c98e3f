import { isCharacterTerm, termFrequencyWeight } from "@engram/core";
import { idf, termWeight } from "./bm25.js";
import type { ChunkEntry } from "./chunk-entry.js";

/**
 * The postings of single Han and kana characters (core's `isCharacterTerm`), scored here rather
 * than by wink: BM25 multiplies their counts by core's `CHARACTER_TERM_WEIGHT` so that they count
 * by presence, and wink can weigh a term only through a field weight that would also lengthen the
 * document. wink still indexes every term, so its document lengths and average are the true ones,
 * and is asked only for the other query terms; these scores are added to its.
 */
export class CharacterPostings {
  readonly #postings = new Map<string, Array<[entry: ChunkEntry, count: number]>>();
  readonly #docs: number;
  readonly #avgLength: number;

  /** Index `docs` (every chunk with terms, as wink holds them). */
  constructor(docs: Iterable<ChunkEntry>) {
    let count = 0;
    let totalLength = 0;
    for (const entry of docs) {
      count++;
      totalLength += entry.terms.length;
      const counts = new Map<string, number>();
      for (const term of entry.terms) {
        if (isCharacterTerm(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      for (const [term, n] of counts) {
        const list = this.#postings.get(term);
        if (list) list.push([entry, n]);
        else this.#postings.set(term, [[entry, n]]);
      }
    }
    this.#docs = count;
    this.#avgLength = count ? totalLength / count : 0;
  }

  /**
   * Add the BM25 weights of the character terms among `queryTerms` (in their order) to `scores`
   * (by entry seq), for the entries `accept` passes.
   */
  addScores(
    queryTerms: readonly string[],
    scores: Map<number, { entry: ChunkEntry; score: number }>,
    accept: ((entry: ChunkEntry) => boolean) | undefined,
  ): void {
    for (const term of queryTerms) {
      const list = this.#postings.get(term);
      if (!list) continue;
      const termIdf = idf(this.#docs, list.length);
      const weight = termFrequencyWeight(term);
      for (const [entry, count] of list) {
        if (accept && !accept(entry)) continue;
        const add = termWeight(count * weight, entry.terms.length, this.#avgLength, termIdf);
        const hit = scores.get(entry.seq);
        if (hit) hit.score += add;
        else scores.set(entry.seq, { entry, score: add });
      }
    }
  }
}
