/**
 * Largest error of an int8 scan kernel's cosine against exact arithmetic on the same int8 vectors,
 * allowed for when proving a top k. USearch's x64 kernels measure 3e-7; the margin covers a
 * reciprocal-square-root estimate with one refinement step on any platform. The JavaScript kernel
 * is exact to ~1e-16.
 */
export const KERNEL_SLACK = 1e-3;

/**
 * Write `vector` into `out` (its length is the dimension count; missing components are 0) as int8
 * with its own scale: the largest component becomes ±127. Cosine ignores scale, so no scale is
 * stored. Returns the rounding angle: the angle (radians) between the vector and its int8 image,
 * which bounds how far any cosine computed from the image can be from the exact one
 * (`|cos θ' − cos θ| ≤ |θ' − θ|` ≤ the two rounding angles). NaN for a zero or non-finite vector
 * (no cosine; written as zeros).
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
 * The cosine similarity of `a` and `b`, accumulated in double precision: engram's vector score,
 * which every path that ranks vectors in memory computes the same way. NaN when either vector is
 * zero (no direction, no similarity).
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    aa += x * x;
    bb += y * y;
  }
  if (aa === 0 || bb === 0) return Number.NaN;
  return Math.max(-1, Math.min(1, dot / (Math.sqrt(aa) * Math.sqrt(bb))));
}
