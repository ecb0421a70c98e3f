import { createRequire } from "node:module";

/** Positions (rows of the matrix) and cosine distances of the nearest rows, nearest first. */
export interface ScanResult {
  positions: BigUint64Array;
  distances: Float32Array;
}

/** Exact k-nearest rows of a row-major float32 matrix by cosine distance, or undefined. */
export type SimdScan = (
  matrix: Float32Array,
  query: Float32Array,
  dims: number,
  count: number,
) => ScanResult;

/** Rows above which a scan uses every core. */
const THREADED_ROWS = 65_536;

let loaded: { scan: SimdScan | undefined; reason?: string } | undefined;

/**
 * USearch's exact (brute-force) search, which compares vectors with SIMD kernels: ~4× faster than
 * sqlite-vec's scalar loop over the same 10k × 384 floats. Loaded on first use; undefined (with
 * {@link simdScanUnavailable} saying why) on a platform without its prebuilt binary, where the
 * store keeps scanning with sqlite-vec.
 *
 * Loaded through `require`: the package's ESM build cannot locate its native binary.
 */
export function simdScan(): SimdScan | undefined {
  if (!loaded) {
    try {
      const usearch = createRequire(import.meta.url)("usearch") as typeof import("usearch");
      const { exactSearch, MetricKind } = usearch;
      loaded = {
        scan: (matrix, query, dims, count) => {
          // Threads pay off only on large scans (starting them costs ~0.5 ms; 10k rows take ~2).
          const threads = matrix.length / dims > THREADED_ROWS ? 0 : 1;
          const found = exactSearch(
            atBufferStart(matrix),
            atBufferStart(query),
            dims,
            count,
            MetricKind.Cos,
            threads,
          );
          return { positions: found.keys as BigUint64Array, distances: found.distances };
        },
      };
    } catch (error) {
      loaded = { scan: undefined, reason: (error as Error).message };
    }
  }
  return loaded.scan;
}

/** Why {@link simdScan} is unavailable (undefined when it loaded or was never tried). */
export function simdScanUnavailable(): string | undefined {
  return loaded?.reason;
}

/** USearch reads a typed array from the start of its buffer (it ignores `byteOffset`): copy views. */
function atBufferStart(vector: Float32Array): Float32Array {
  return vector.byteOffset === 0 ? vector : vector.slice();
}
