import {
  type ChunkLocation,
  compareChunkOrder,
  completeTopK,
  type StoreHit,
} from "@engram/core/driver";

/** Best score first, then the contract's tie order (path, start line, end line, id). */
export function byScoreThenLocation(a: StoreHit, b: StoreHit): number {
  return b.score - a.score || compareChunkOrder(location(a), location(b));
}

/**
 * The best `k` hits in the contract's order: Qdrant's top-k keeps an arbitrary part of a tie at
 * the cut-off, so core's {@link completeTopK} widens the fetch until the tie is complete.
 */
export function topK(
  k: number,
  fetch: (limit: number) => Promise<StoreHit[]>,
): Promise<StoreHit[]> {
  return completeTopK(k, fetch, byScoreThenLocation);
}

function location(hit: StoreHit): ChunkLocation {
  const { path, startLine, endLine, id } = hit.chunk;
  return { path, startLine, endLine, id };
}
