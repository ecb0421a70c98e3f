import { compareChunkOrder } from "@engram/core";
import type { ChunkEntry } from "./chunk-entry.js";

/** An entry with its search score. */
export interface Scored {
  entry: ChunkEntry;
  score: number;
}

/**
 * Result order of both searches: higher score first; equal scores by path, then start line (the
 * contract), then end line and id (so the order is total and never depends on insertion order).
 * Negative when `a` ranks before `b`.
 */
export function compareScored(a: Scored, b: Scored): number {
  return b.score - a.score || compareChunkOrder(a.entry.chunk, b.entry.chunk);
}

/**
 * The best `limit` of the offered hits in {@link compareScored} order, kept in a bounded binary
 * heap whose root is the worst kept hit: O(n log limit) instead of sorting all n candidates.
 */
export class TopK {
  readonly #limit: number;
  readonly #heap: Scored[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Consider one hit. */
  offer(entry: ChunkEntry, score: number): void {
    if (this.#limit <= 0) return;
    const heap = this.#heap;
    if (heap.length < this.#limit) {
      heap.push({ entry, score });
      this.#siftUp(heap.length - 1);
      return;
    }
    const worst = heap[0] as Scored;
    if (score < worst.score) return; // the common case: decided without comparing strings
    const hit = { entry, score };
    if (compareScored(hit, worst) >= 0) return;
    heap[0] = hit;
    this.#siftDown(0);
  }

  /** The kept hits, best first. */
  results(): Scored[] {
    return [...this.#heap].sort(compareScored);
  }

  /** True when `a` is a worse hit than `b` (belongs nearer the root). */
  #worse(a: Scored, b: Scored): boolean {
    return compareScored(a, b) > 0;
  }

  #siftUp(index: number): void {
    const heap = this.#heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#worse(heap[i] as Scored, heap[parent] as Scored)) return;
      [heap[i], heap[parent]] = [heap[parent] as Scored, heap[i] as Scored];
      i = parent;
    }
  }

  #siftDown(index: number): void {
    const heap = this.#heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && this.#worse(heap[left] as Scored, heap[worst] as Scored))
        worst = left;
      if (right < heap.length && this.#worse(heap[right] as Scored, heap[worst] as Scored))
        worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst] as Scored, heap[i] as Scored];
      i = worst;
    }
  }
}
