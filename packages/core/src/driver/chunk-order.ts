import type { StoreHit } from "./records.js";

/** Where a chunk sits: what the contract's tie order compares. */
export interface ChunkLocation {
  path: string;
  startLine: number;
  endLine: number;
  id: string;
}

/**
 * The contract's order for hits with equal scores (and for a file's chunks): path, then start line,
 * then end line and id so the order is total. Paths compare by UTF-16 code units. Negative when `a`
 * comes first. Drivers that sort in their own engine (SQLite's `ORDER BY`) must agree with it.
 */
export function compareChunkOrder(a: ChunkLocation, b: ChunkLocation): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return (
    a.startLine - b.startLine || a.endLine - b.endLine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** The contract's order of search hits: best score first, equal scores in chunk order. */
export function compareHits(a: StoreHit, b: StoreHit): number {
  return b.score - a.score || compareChunkOrder(a.chunk, b.chunk);
}

/** Largest limit ever asked of an engine (LanceDB and Qdrant take 32-bit counts). */
const MAX_FETCH = 2 ** 31 - 1;

/**
 * The best `k` items in `order`, from an engine whose own top-k keeps an arbitrary part of a tie
 * at the cut-off. `k + 1` items are fetched; while the `k`-th score equals the last fetched one,
 * the tie group may continue past the cut-off, so the limit doubles until the group is complete.
 * `order` sorts best first, ties in the contract's order.
 */
export async function completeTopK<T extends { score: number }>(
  k: number,
  fetch: (limit: number) => Promise<T[]>,
  order: (a: T, b: T) => number,
): Promise<T[]> {
  for (let limit = Math.min(k + 1, MAX_FETCH); ; limit = Math.min(limit * 2, MAX_FETCH)) {
    const items = (await fetch(limit)).sort(order);
    const complete =
      items.length < limit ||
      limit >= MAX_FETCH ||
      items[k - 1]?.score !== items[items.length - 1]?.score;
    if (complete) return items.slice(0, k);
  }
}
