/** Largest limit ever asked of an engine (LanceDB and Qdrant take 32-bit counts). */
const MAX_FETCH = 2 ** 31 - 1;

/**
 * The best `k` items in the contract's order, from an engine whose own top-k keeps an arbitrary
 * part of a tie at the cut-off (LanceDB, Qdrant). `k + 1` items are fetched; while the `k`-th
 * score equals the last fetched one, the tie group may continue past the cut-off, so the limit
 * doubles until the group is complete. `order` sorts best first, ties in the contract's order
 * (score, then {@link compareChunkOrder}).
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
