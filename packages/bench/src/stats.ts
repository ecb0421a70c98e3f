/** The median of `values` (0 for none). */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The p-th percentile (nearest rank) of `values` (0 for none). */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Milliseconds taken by `fn`. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
