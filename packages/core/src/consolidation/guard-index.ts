import type { ChunkRecord } from "../store/records.js";
import { termFrequencyWeight } from "../text/character-terms.js";

/** BM25 parameters (the ones core's stores share: k1 1.2, b 0.75, IDF `ln(1 + (N − n + 0.5)/(n + 0.5))`). */
const K1 = 1.2;
const B = 0.75;

/**
 * A small BM25 index over chunks held in memory: what the recall guard ranks the workspace's
 * chunks with, before and after a planned change, without touching the real index. It scores as
 * core's stores do (the analyzer's terms, a single Han or kana character counted by presence).
 */
export class ChunkRanker {
  readonly #chunks: ChunkRecord[];
  readonly #counts: Array<Map<string, number>>;
  readonly #df = new Map<string, number>();
  readonly #avgLength: number;

  constructor(chunks: readonly ChunkRecord[]) {
    this.#chunks = [...chunks];
    this.#counts = this.#chunks.map((c) => {
      const m = new Map<string, number>();
      for (const t of c.terms) m.set(t, (m.get(t) ?? 0) + 1);
      for (const t of m.keys()) this.#df.set(t, (this.#df.get(t) ?? 0) + 1);
      return m;
    });
    const total = this.#chunks.reduce((s, c) => s + c.terms.length, 0);
    this.#avgLength = this.#chunks.length ? total / this.#chunks.length : 1;
  }

  /** The `k` best chunks for the (unique) query terms, best first; ties by path and line. */
  top(queryTerms: readonly string[], k: number): ChunkRecord[] {
    const terms = [...new Set(queryTerms)];
    const n = this.#chunks.length;
    const idf = terms.map((t) => {
      const df = this.#df.get(t) ?? 0;
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    });
    const scored: Array<{ chunk: ChunkRecord; score: number }> = [];
    this.#chunks.forEach((chunk, i) => {
      const counts = this.#counts[i] as Map<string, number>;
      let score = 0;
      terms.forEach((t, j) => {
        const tf = counts.get(t);
        if (!tf) return;
        const f = tf * termFrequencyWeight(t);
        const norm = 1 - B + B * (chunk.terms.length / this.#avgLength);
        score += ((f * (K1 + 1)) / (K1 * norm + f)) * (idf[j] as number);
      });
      if (score > 0) scored.push({ chunk, score });
    });
    scored.sort(
      (a, b) =>
        b.score - a.score ||
        (a.chunk.path < b.chunk.path ? -1 : a.chunk.path > b.chunk.path ? 1 : 0) ||
        a.chunk.startLine - b.chunk.startLine,
    );
    return scored.slice(0, k).map((s) => s.chunk);
  }
}
