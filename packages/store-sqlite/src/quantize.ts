/**
 * Largest error of the int8 SIMD kernel's cosine against exact arithmetic on the same int8
 * vectors, allowed for when proving a top k. x64 measures 3e-7 (`test/quantize.test.ts` checks
 * this platform's kernel against it); the margin covers a reciprocal-square-root estimate with
 * one refinement step on any platform.
 */
export const KERNEL_SLACK = 1e-3;

/**
 * Write `vector` into `out` (its length is the dimension count; missing components are 0) as int8 with its own scale: the largest component
 * becomes ±127. Cosine ignores scale, so no scale is stored. Returns the rounding angle: the angle
 * (radians) between the vector and its int8 image, which bounds how far any cosine computed from
 * the image can be from the exact one (`|cos θ' − cos θ| ≤ |θ' − θ|` ≤ the two rounding angles).
 * NaN for a zero or non-finite vector (no cosine; written as zeros).
 */
export function quantize(vector: ArrayLike<number>, out: Int8Array): number {
  const dims = out.length;
  let norm = 0;
  let largest = 0;
  for (let i = 0; i < dims; i++) {
    const x = vector[i] ?? 0;
    norm += x * x;
    const magnitude = Math.abs(x);
    if (magnitude > largest) largest = magnitude;
  }
  if (!(norm > 0 && Number.isFinite(norm))) {
    out.fill(0);
    return Number.NaN;
  }
  const scale = 127 / largest;
  let residual = 0;
  for (let i = 0; i < dims; i++) {
    const x = vector[i] ?? 0;
    const q = Math.round(x * scale);
    out[i] = q;
    const r = x - q / scale;
    residual += r * r;
  }
  // |x̂ − q̂| ≤ e with e = ‖x − q/scale‖ / ‖x‖; the angle between a unit vector and one at most e
  // away is at most asin(e).
  return Math.asin(Math.min(1, Math.sqrt(residual / norm)));
}

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
