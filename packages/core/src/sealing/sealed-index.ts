import { mainOnlySource } from "../privacy/scope-sources.js";
import { compileFilter } from "../store/filter-predicate.js";
import type { ChunkRecord, SearchFilter, StoreHit } from "../store/records.js";
import { termFrequencyWeight } from "../text/character-terms.js";

const K1 = 1.2;
const B = 0.75;

/**
 * The chunks of sealed files, opened in this process, searched by BM25 in memory and never
 * written anywhere: a sealed file's plaintext stays out of `.engram/` (index, cache, logs).
 *
 * BM25 here counts only the sealed chunks (its IDF cannot see the store's corpus), with Lucene's
 * always-positive IDF and the store's term weighting; its scores are merged with the store's by
 * value, which is an approximation. Sealed chunks have no vectors: they are found by keywords.
 */
export class SealedIndex {
  readonly #chunks: ChunkRecord[];
  readonly #df = new Map<string, number>();
  readonly #avgLength: number;

  constructor(chunks: readonly ChunkRecord[]) {
    this.#chunks = chunks.map((c) => ({ ...c, source: mainOnlySource("memory") }));
    let total = 0;
    for (const chunk of this.#chunks) {
      total += chunk.terms.length;
      for (const term of new Set(chunk.terms)) this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
    }
    this.#avgLength = this.#chunks.length ? total / this.#chunks.length : 1;
  }

  get size(): number {
    return this.#chunks.length;
  }

  /** The chunks held (to merge several indexes into one). */
  get chunks(): readonly ChunkRecord[] {
    return this.#chunks;
  }

  /** Up to `k` chunks holding any of `terms`, best first (ties by path, then start line). */
  searchText(terms: readonly string[], k: number, filter?: SearchFilter): StoreHit[] {
    const unique = [...new Set(terms)].filter((t) => this.#df.has(t));
    if (!unique.length || k < 1) return [];
    const keep = compileFilter(filter);
    const n = this.#chunks.length;
    const hits: StoreHit[] = [];
    for (const chunk of this.#chunks) {
      if (keep && !keep(chunk)) continue;
      const counts = new Map<string, number>();
      for (const term of chunk.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      const norm = 1 - B + (B * chunk.terms.length) / this.#avgLength;
      let score = 0;
      for (const term of unique) {
        const count = counts.get(term);
        if (!count) continue;
        const df = this.#df.get(term) as number;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const tf = count * termFrequencyWeight(term);
        score += (idf * tf * (K1 + 1)) / (tf + K1 * norm);
      }
      if (score > 0) {
        const { terms: _t, embedding: _e, ...stored } = chunk;
        hits.push({ chunk: stored, score });
      }
    }
    return hits
      .sort(
        (a, b) =>
          b.score - a.score ||
          (a.chunk.path < b.chunk.path ? -1 : a.chunk.path > b.chunk.path ? 1 : 0) ||
          a.chunk.startLine - b.chunk.startLine,
      )
      .slice(0, k);
  }
}
