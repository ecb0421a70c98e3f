import { isCharacterTerm, termFrequencyWeight } from "@engram/core";
import { idf, termWeight } from "./bm25.js";
import type { ChunkEntry } from "./chunk-entry.js";

/**
 * The postings of single Han and kana characters (core's `isCharacterTerm`), scored here rather
 * than by wink: BM25 multiplies their counts by core's `CHARACTER_TERM_WEIGHT` so that they count
 * by presence, and wink can weigh a term only through a field weight that would also lengthen the
 * document. wink still indexes every term, so its document lengths and average are the true ones,
 * and is asked only for the other query terms; these scores are added to its.
 *
 * A character's postings are one flat array of (entry seq, count) pairs: a Chinese chunk holds a
 * few hundred distinct characters, and a pair costs 16 bytes this way against ~60 as an object.
 */
export class CharacterPostings {
  readonly #postings = new Map<string, number[]>();
  readonly #docs: ReadonlyMap<number, ChunkEntry>;
  readonly #count: number;
  readonly #avgLength: number;

  /**
   * Index `docs` (every chunk with terms, by seq, as wink holds them). The map is read again when
   * scoring, so it must not change in between (the text index builds anew after any change).
   */
  constructor(docs: ReadonlyMap<number, ChunkEntry>) {
    this.#docs = docs;
    this.#count = docs.size;
    let totalLength = 0;
    const counts = new Map<string, number>();
    for (const entry of docs.values()) {
      totalLength += entry.terms.length;
      counts.clear();
      for (const term of entry.terms) {
        if (isCharacterTerm(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      for (const [term, n] of counts) {
        const list = this.#postings.get(term);
        if (list) list.push(entry.seq, n);
        else this.#postings.set(term, [entry.seq, n]);
      }
    }
    this.#avgLength = this.#count ? totalLength / this.#count : 0;
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
      const termIdf = idf(this.#count, list.length / 2);
      const weight = termFrequencyWeight(term);
      for (let i = 0; i < list.length; i += 2) {
        const seq = list[i] as number;
        const hit = scores.get(seq);
        const entry = hit?.entry ?? (this.#docs.get(seq) as ChunkEntry);
        if (!hit && accept && !accept(entry)) continue;
        const count = (list[i + 1] as number) * weight;
        const add = termWeight(count, entry.terms.length, this.#avgLength, termIdf);
        if (hit) hit.score += add;
        else scores.set(seq, { entry, score: add });
      }
    }
  }
}
