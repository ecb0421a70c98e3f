import { type ChunkRow, compareLocation } from "./rows.js";

/** A chunk row with its score (higher is better). */
export interface Scored {
  row: ChunkRow;
  score: number;
}

/** Largest `limit` ever asked of LanceDB (it takes a 32-bit count). */
const MAX_FETCH = 2 ** 31 - 1;

/** Best score first, then the contract's tie order (path, start line). */
export function byScoreThenLocation(a: Scored, b: Scored): number {
  return b.score - a.score || compareLocation(a.row, b.row);
}

/**
 * The best `k` rows in the contract's order, from a source that returns the best `limit` rows in
 * an unspecified order among equal scores (LanceDB's top-k keeps an arbitrary subset of a tie at
 * the cut-off). One row more than `k` is fetched; while the `k`-th score equals the last fetched
 * one, the tie group may continue past the cut-off, so the fetch doubles until it is complete.
 */
export async function topK(
  k: number,
  fetch: (limit: number) => Promise<Scored[]>,
): Promise<Scored[]> {
  for (let limit = Math.min(k + 1, MAX_FETCH); ; limit = Math.min(limit * 2, MAX_FETCH)) {
    const rows = (await fetch(limit)).sort(byScoreThenLocation);
    const complete =
      rows.length < limit ||
      limit >= MAX_FETCH ||
      rows[k - 1]?.score !== rows[rows.length - 1]?.score;
    if (complete) return rows.slice(0, k);
  }
}
