import { resized } from "./chunk-slots.js";
import { cosineSimilarity, KERNEL_SLACK, quantize } from "./quantize.js";
import type { VectorKernel } from "./vector-kernel.js";

/** A row found by {@link VectorMatrix.nearest}: the chunk's slot and its exact cosine similarity. */
export interface MatrixHit {
  slot: number;
  score: number;
}

/**
 * The float32 vectors of some slots, read where the vectors are kept (absent: none). May answer
 * synchronously (the in-memory store) or not (a store's table).
 */
export type ExactVectors = (
  slots: readonly number[],
) => ReadonlyMap<number, Float32Array> | Promise<ReadonlyMap<number, Float32Array>>;

const INITIAL_ROWS = 1024;
const LIVE = 1;
const ZERO = 2;
/** Candidates rescored per call of the exact source. */
const RESCORE_BATCH = 32;

/**
 * The vectors of the in-memory index as int8 rows, one per embedded chunk, each with its own
 * scale (a quarter of float32's memory and of the bytes a scan reads), answering exact cosine
 * k-NN: a kernel scan of the int8 rows finds candidates, their float32 vectors (from an
 * {@link ExactVectors} source) give exact scores, and the rounding bound proves that no row left
 * out could be nearer (see {@link nearest}).
 */
export class VectorMatrix {
  #data: Int8Array;
  #norms: Float64Array;
  /** Per row: the chunk slot it belongs to. */
  #slots: Int32Array;
  /** Per row: {@link LIVE}, {@link ZERO} (held, never returned: no cosine) or 0 (removed). */
  #state: Uint8Array;
  /** Per chunk slot: its row, or -1. */
  #rowOf = new Int32Array(INITIAL_ROWS).fill(-1);
  #rows = 0;
  #dead = 0;
  /** Largest rounding angle of any row ever held (removals never lower it: still a bound). */
  #rounding = 0;

  /** @param capacity Rows to make room for at once (a load that knows its size grows no copies). */
  constructor(
    readonly dims: number,
    private readonly kernel: VectorKernel,
    capacity = INITIAL_ROWS,
  ) {
    const rows = Math.max(INITIAL_ROWS, capacity);
    this.#data = new Int8Array(rows * dims);
    this.#norms = new Float64Array(rows);
    this.#slots = new Int32Array(rows);
    this.#state = new Uint8Array(rows);
  }

  /** Vectors held. */
  get size(): number {
    return this.#rows - this.#dead;
  }

  /** Bytes held. */
  get bytes(): number {
    return (
      this.#data.length + this.#norms.length * 8 + this.#slots.length * 5 + this.#rowOf.length * 4
    );
  }

  /** Add the vector of chunk `slot` (a slot without one). */
  add(slot: number, vector: ArrayLike<number>): void {
    if (this.#rows === this.#slots.length) this.#grow(this.#rows * 2);
    if (slot >= this.#rowOf.length) {
      const rowOf = new Int32Array(Math.max(slot + 1, this.#rowOf.length * 2)).fill(-1);
      rowOf.set(this.#rowOf);
      this.#rowOf = rowOf;
    }
    const row = this.#rows++;
    const image = this.#data.subarray(row * this.dims, (row + 1) * this.dims);
    const rounding = quantize(vector, image);
    let norm = 0;
    for (let i = 0; i < this.dims; i++) norm += (image[i] as number) * (image[i] as number);
    this.#norms[row] = Math.sqrt(norm);
    this.#slots[row] = slot;
    this.#state[row] = Number.isNaN(rounding) ? ZERO : LIVE;
    if (rounding > this.#rounding) this.#rounding = rounding;
    this.#rowOf[slot] = row;
  }

  /** Forget the vector of chunk `slot` (no-op without one). */
  remove(slot: number): void {
    const row = this.#rowOf[slot] ?? -1;
    if (row < 0) return;
    this.#rowOf[slot] = -1;
    this.#state[row] = 0;
    this.#dead++;
    if (this.#dead > INITIAL_ROWS && this.#dead * 4 > this.#rows) this.#compactRows();
  }

  /** Renumber chunk slots (old → new, -1: gone) after the index compacted them. */
  renumber(remap: Int32Array, slots: number): void {
    const rowOf = new Int32Array(Math.max(INITIAL_ROWS, slots)).fill(-1);
    for (let row = 0; row < this.#rows; row++) {
      if (this.#state[row] === 0) continue;
      const to = remap[this.#slots[row] as number] ?? -1;
      if (to < 0) {
        this.#state[row] = 0;
        this.#dead++;
        continue;
      }
      this.#slots[row] = to;
      rowOf[to] = row;
    }
    this.#rowOf = rowOf;
    this.#compactRows();
  }

  /**
   * The `k` nearest chunks that `accept` passes (all when undefined), with exact cosine
   * similarities, best first, plus every chunk tied with the `k`-th (the caller orders ties).
   *
   * The int8 scan returns rows in order of their approximate distance, which is within `bound` =
   * (largest row rounding angle + the query's + {@link KERNEL_SLACK}) of the exact one. Rows are
   * rescored in that order until the next approximate distance exceeds the k-th exact distance
   * found + `bound`: no row from there on can be as near. When the scanned rows run out first, the
   * scan widens (×4) until that holds or every row was scanned.
   */
  async nearest(
    query: Float32Array,
    k: number,
    accept: ((slot: number) => boolean) | undefined,
    exact: ExactVectors,
  ): Promise<MatrixHit[]> {
    if (this.size === 0 || k < 1) return [];
    const image = new Int8Array(this.dims);
    const rounding = quantize(query, image);
    if (Number.isNaN(rounding)) return [];
    const bound = this.#rounding + rounding + KERNEL_SLACK;
    const matrix = this.#data.subarray(0, this.#rows * this.dims);
    const known = new Map<number, number>(); // slot → exact distance, kept across widenings
    for (let count = Math.min(this.#rows, 8 * k + 64); ; count = Math.min(this.#rows, count * 4)) {
      const { positions, distances } = this.kernel(matrix, image, this.dims, count, this.#norms);
      const hits: MatrixHit[] = [];
      const nearest = new KthSmallest(k);
      let proven = false;
      let i = 0;
      while (i < positions.length && !proven) {
        // The next candidates in scan order, up to a batch, rescored with one read.
        const batch: number[] = [];
        for (; i < positions.length && batch.length < RESCORE_BATCH; i++) {
          const row = Number(positions[i]);
          if (this.#state[row] !== LIVE) continue;
          if ((distances[i] as number) > nearest.kth + bound) {
            proven = true;
            break;
          }
          const slot = this.#slots[row] as number;
          if (accept && !accept(slot)) continue;
          batch.push(slot);
        }
        const missing = batch.filter((slot) => !known.has(slot));
        if (missing.length) {
          const vectors = await exact(missing);
          for (const slot of missing) {
            const vector = vectors.get(slot);
            known.set(slot, vector ? 1 - cosineSimilarity(query, vector) : Number.NaN);
          }
        }
        for (const slot of batch) {
          const distance = known.get(slot) as number;
          if (Number.isNaN(distance)) continue;
          hits.push({ slot, score: 1 - distance });
          nearest.add(distance);
        }
      }
      // Either every scanned row was rescored, and rows not scanned are at least as far as the
      // last one, or the scan reached a row too far to matter.
      const last = distances[distances.length - 1] ?? Number.POSITIVE_INFINITY;
      if (proven || count >= this.#rows || last > nearest.kth + bound) {
        return hits.sort((a, b) => b.score - a.score);
      }
    }
  }

  /** Forget every vector (the dimensions stay). */
  clear(): void {
    this.#rows = 0;
    this.#dead = 0;
    this.#rounding = 0;
    this.#rowOf.fill(-1);
  }

  #grow(capacity: number): void {
    this.#data = resized(this.#data, capacity * this.dims);
    this.#norms = resized(this.#norms, capacity);
    this.#slots = resized(this.#slots, capacity);
    this.#state = resized(this.#state, capacity);
  }

  /** Move the kept rows to the front, dropping removed ones. */
  #compactRows(): void {
    let to = 0;
    for (let from = 0; from < this.#rows; from++) {
      if (this.#state[from] === 0) continue;
      if (to !== from) {
        this.#data.copyWithin(to * this.dims, from * this.dims, (from + 1) * this.dims);
        this.#norms[to] = this.#norms[from] as number;
        this.#slots[to] = this.#slots[from] as number;
        this.#state[to] = this.#state[from] as number;
      }
      this.#rowOf[this.#slots[to] as number] = to;
      to++;
    }
    this.#rows = to;
    this.#dead = 0;
  }
}

/**
 * The k-th smallest of the values added so far (Infinity until k were added): a max-heap of the
 * k smallest, O(log k) per value that enters it.
 */
export class KthSmallest {
  readonly #heap: Float64Array;
  #size = 0;

  constructor(private readonly k: number) {
    this.#heap = new Float64Array(Math.max(1, k));
  }

  get kth(): number {
    return this.#size < this.k ? Number.POSITIVE_INFINITY : (this.#heap[0] as number);
  }

  add(value: number): void {
    const heap = this.#heap;
    const k = this.k;
    if (this.#size < k) {
      let i = this.#size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if ((heap[parent] as number) >= value) break;
        heap[i] = heap[parent] as number;
        i = parent;
      }
      heap[i] = value;
    } else if (value < (heap[0] as number)) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= k) break;
        const right = left + 1;
        const child = right < k && (heap[right] as number) > (heap[left] as number) ? right : left;
        if ((heap[child] as number) <= value) break;
        heap[i] = heap[child] as number;
        i = child;
      }
      heap[i] = value;
    }
  }
}
