/**
 * Cosine distance as sqlite-vec 0.1.9 computes it (`distance_cosine_float`: float32 sums in index
 * order, then `1 − dot / (sqrt(aa) · sqrt(bb))` in double, rounded to float32), so the in-memory
 * search scores exactly like the vec0 scan. NaN when either vector is zero.
 */
export function cosineDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const f = Math.fround;
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot = f(dot + f(x * y));
    aa = f(aa + f(x * x));
    bb = f(bb + f(y * y));
  }
  if (aa === 0 || bb === 0) return Number.NaN;
  return f(1 - dot / (Math.sqrt(aa) * Math.sqrt(bb)));
}
