import { compileFilter, type SearchFilter } from "@engram/core";
import type { ChunkEntry } from "./chunk-entry.js";
import { l2Norm } from "./chunk-entry.js";
import type { ChunkIndex } from "./chunk-index.js";
import { type Scored, TopK } from "./top-k.js";

/**
 * Exact cosine KNN by brute force over every embedded chunk that passes the filter (filtered
 * while scanning, so a selective filter still yields `k` hits). Norms are computed once, at write
 * time. A zero vector (query or chunk) has no cosine similarity and matches nothing.
 */
export class VectorIndex implements ChunkIndex {
  readonly #entries = new Map<number, ChunkEntry>();

  add(entry: ChunkEntry): void {
    if (entry.vector !== null) this.#entries.set(entry.seq, entry);
  }

  remove(entry: ChunkEntry): void {
    this.#entries.delete(entry.seq);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Chunks with a vector. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Up to `limit` chunks nearest to `query` (which must have the store's dimensions), best
   * first, ties by path then start line. Scores are cosine similarities clamped to [-1, 1].
   */
  nearest(query: Float32Array, limit: number, filter?: SearchFilter): Scored[] {
    if (limit < 1) return [];
    const queryNorm = l2Norm(query);
    if (queryNorm === 0) return [];
    const accept = compileFilter(filter);
    const top = new TopK(limit);
    const dims = query.length;
    for (const entry of this.#entries.values()) {
      const vector = entry.vector as Float32Array;
      if (entry.norm === 0 || (accept && !accept(entry.chunk))) continue;
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += (query[i] as number) * (vector[i] as number);
      const cosine = dot / (queryNorm * entry.norm);
      top.offer(entry, Math.max(-1, Math.min(1, cosine)));
    }
    return top.results();
  }
}
