/**
 * `items` in consecutive slices of at most `size` (none for an empty list): how a driver keeps
 * each request or statement to a bounded number of ids, paths or points.
 */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
