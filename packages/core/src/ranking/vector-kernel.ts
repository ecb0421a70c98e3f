import { createRequire } from "node:module";

/** Positions (rows of the matrix) and cosine distances of the nearest rows, nearest first. */
export interface ScanResult {
  positions: ArrayLike<number | bigint>;
  distances: Float32Array | Float64Array;
}

/**
 * An exact (brute-force) cosine scan of a row-major int8 matrix: the `count` nearest rows. `norms`
 * holds each row's Euclidean length (a kernel may ignore it).
 */
export type VectorKernel = (
  matrix: Int8Array,
  query: Int8Array,
  dims: number,
  count: number,
  norms: Float64Array,
) => ScanResult;

let simd: { kernel: VectorKernel | undefined } | undefined;

/**
 * The fastest kernel this process has: USearch's SIMD exact search (100k × 384 in ~8 ms on one
 * core) when the optional peer dependency `usearch` is installed and its binary loads, else
 * {@link javascriptKernel} (~5× slower). Loaded through `require`: USearch's ESM build cannot
 * locate its native binary.
 */
export function vectorKernel(): VectorKernel {
  if (!simd) {
    try {
      const usearch = createRequire(import.meta.url)("usearch") as {
        exactSearch: (
          dataset: Int8Array,
          queries: Int8Array,
          dims: number,
          count: number,
          metric: unknown,
          threads: number,
        ) => { keys: BigUint64Array; distances: Float32Array };
        MetricKind: { Cos: unknown };
      };
      simd = {
        kernel: (matrix, query, dims, count) => {
          const found = usearch.exactSearch(
            atBufferStart(matrix),
            atBufferStart(query),
            dims,
            count,
            usearch.MetricKind.Cos,
            0, // every core
          );
          return { positions: found.keys, distances: found.distances };
        },
      };
    } catch {
      simd = { kernel: undefined };
    }
  }
  return simd.kernel ?? javascriptKernel;
}

/** USearch reads a typed array from the start of its buffer (it ignores `byteOffset`): copy views. */
function atBufferStart(vector: Int8Array): Int8Array {
  return vector.byteOffset === 0 ? vector : vector.slice();
}

/**
 * The scan in JavaScript: exact integer dot products, then the `count` nearest rows by a partial
 * selection. Used where USearch is not installed.
 */
export const javascriptKernel: VectorKernel = (matrix, query, dims, count, norms) => {
  const rows = Math.floor(matrix.length / dims);
  let queryNorm = 0;
  for (let i = 0; i < dims; i++) queryNorm += (query[i] as number) * (query[i] as number);
  queryNorm = Math.sqrt(queryNorm);
  const distances = new Float64Array(rows);
  for (let row = 0, at = 0; row < rows; row++, at += dims) {
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += (matrix[at + i] as number) * (query[i] as number);
    const norm = (norms[row] as number) * queryNorm;
    distances[row] = norm > 0 ? 1 - dot / norm : 1;
  }
  const order = nearestRows(distances, Math.min(count, rows));
  return {
    positions: order,
    distances: Float64Array.from(order, (row) => distances[row] as number),
  };
};

/** The `take` rows of smallest distance, nearest first (ties by row), by a bounded max-heap. */
function nearestRows(distances: Float64Array, take: number): number[] {
  if (take <= 0) return [];
  const heap: number[] = [];
  const worse = (a: number, b: number) =>
    (distances[a] as number) > (distances[b] as number) ||
    ((distances[a] as number) === (distances[b] as number) && a > b);
  for (let row = 0; row < distances.length; row++) {
    if (heap.length < take) {
      heap.push(row);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i] as number, heap[parent] as number)) break;
        [heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number];
        i = parent;
      }
    } else if (worse(heap[0] as number, row)) {
      heap[0] = row;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let top = i;
        if (left < heap.length && worse(heap[left] as number, heap[top] as number)) top = left;
        if (right < heap.length && worse(heap[right] as number, heap[top] as number)) top = right;
        if (top === i) break;
        [heap[i], heap[top]] = [heap[top] as number, heap[i] as number];
        i = top;
      }
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}
