import { completeTopK } from "@engram/core/driver";
import { type ChunkRow, compareLocation } from "./rows.js";

/** A chunk row with its score (higher is better). */
export interface Scored {
  row: ChunkRow;
  score: number;
}

/** Best score first, then the contract's tie order (path, start line). */
export function byScoreThenLocation(a: Scored, b: Scored): number {
  return b.score - a.score || compareLocation(a.row, b.row);
}

/**
 * The best `k` rows in the contract's order: LanceDB's top-k keeps an arbitrary subset of a tie
 * at the cut-off, so core's {@link completeTopK} widens the fetch until the tie is complete.
 */
export function topK(k: number, fetch: (limit: number) => Promise<Scored[]>): Promise<Scored[]> {
  return completeTopK(k, fetch, byScoreThenLocation);
}
