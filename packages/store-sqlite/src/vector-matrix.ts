import type { LabelPredicate } from "@engram/core";
import type { SimdScan } from "./simd-scan.js";

/** A row found by {@link VectorMatrix.nearest}: the chunk's rowid and its cosine distance. */
export interface MatrixHit {
  rowid: number;
  distance: number;
}

const INITIAL_CAPACITY = 1024;
const REMOVED = 0;
const LIVE = 1;
const ZERO = 2;

/**
 * An in-memory copy of the index's vectors (one float32 row per embedded chunk, with its rowid,
 * tier and source) that answers exact cosine k-NN with a SIMD scan. It is a cache of the vec0
 * table: the store loads it, keeps it in step with its own writes and reloads it when another
 * connection changed the vectors (see `VectorIndex`).
 */
export class VectorMatrix {
  #data: Float32Array;
  #rowids: Float64Array;
  #tier: Uint8Array;
  #source: Uint8Array;
  /** Per slot: {@link LIVE}, {@link ZERO} (held, never returned: no cosine) or {@link REMOVED}. */
  #state: Uint8Array;
  #slotOf = new Map<number, number>();
  #labels: string[] = [];
  #labelCode = new Map<string, number>();
  #rows = 0;
  #dead = 0;

  constructor(
    readonly dims: number,
    private readonly scan: SimdScan,
    capacity = INITIAL_CAPACITY,
  ) {
    const n = Math.max(1, capacity);
    this.#data = new Float32Array(n * dims);
    this.#rowids = new Float64Array(n);
    this.#tier = new Uint8Array(n);
    this.#source = new Uint8Array(n);
    this.#state = new Uint8Array(n);
  }

  /** Vectors held (removed rows excluded). */
  get size(): number {
    return this.#slotOf.size;
  }

  /** Add (or replace) the vector of `rowid`. */
  set(rowid: number, vector: ArrayLike<number>, tier: string, source: string): void {
    this.remove(rowid);
    if (this.#rows === this.#rowids.length) this.#resize(this.#rows * 2);
    const slot = this.#rows++;
    const base = slot * this.dims;
    let norm = 0;
    for (let i = 0; i < this.dims; i++) {
      const x = vector[i] ?? 0;
      this.#data[base + i] = x;
      norm += x * x;
    }
    this.#rowids[slot] = rowid;
    this.#tier[slot] = this.#code(tier);
    this.#source[slot] = this.#code(source);
    this.#state[slot] = norm > 0 && Number.isFinite(norm) ? LIVE : ZERO;
    this.#slotOf.set(rowid, slot);
  }

  /** Forget the vector of `rowid` (no-op when absent). */
  remove(rowid: number): void {
    const slot = this.#slotOf.get(rowid);
    if (slot === undefined) return;
    this.#slotOf.delete(rowid);
    this.#state[slot] = REMOVED;
    this.#dead++;
    if (this.#dead > INITIAL_CAPACITY && this.#dead * 4 > this.#rows) this.#compact();
  }

  /**
   * Rows accepted by `accept`, nearest first, at least the `k` nearest of them plus every row as
   * near as the `k`-th (the caller orders ties). The scan asks for a few more rows than `k` to make
   * room for filtered-out ones and widens (×4) until the `k`-th accepted distance is strictly below
   * the farthest scanned one, or every row was scanned.
   */
  nearest(query: Float32Array, k: number, accept: LabelPredicate): MatrixHit[] {
    if (this.#rows === 0 || k < 1 || !hasNorm(query)) return [];
    const matrix = this.#data.subarray(0, this.#rows * this.dims);
    for (let count = Math.min(this.#rows, 2 * k + 8); ; count = Math.min(this.#rows, count * 4)) {
      const { positions, distances } = this.scan(matrix, query, this.dims, count);
      const hits: MatrixHit[] = [];
      for (let i = 0; i < positions.length; i++) {
        const slot = Number(positions[i]);
        const distance = distances[i] as number;
        if (this.#state[slot] !== LIVE || Number.isNaN(distance)) continue;
        const tier = this.#labels[this.#tier[slot] as number] as string;
        const source = this.#labels[this.#source[slot] as number] as string;
        if (accept(tier, source)) hits.push({ rowid: this.#rowids[slot] as number, distance });
      }
      if (count >= this.#rows) return hits;
      const farthest = distances[positions.length - 1] as number;
      const kth = hits[k - 1];
      if (kth && kth.distance < farthest) return hits;
    }
  }

  #code(label: string): number {
    let code = this.#labelCode.get(label);
    if (code === undefined) {
      code = this.#labels.length;
      if (code > 255) throw new Error("more than 256 distinct tiers and sources");
      this.#labels.push(label);
      this.#labelCode.set(label, code);
    }
    return code;
  }

  #resize(capacity: number): void {
    const grow = <T extends Float32Array | Float64Array | Uint8Array>(old: T, size: number): T => {
      const next = new (old.constructor as new (n: number) => T)(size);
      next.set(old.subarray(0, Math.min(old.length, size)));
      return next;
    };
    this.#data = grow(this.#data, capacity * this.dims);
    this.#rowids = grow(this.#rowids, capacity);
    this.#tier = grow(this.#tier, capacity);
    this.#source = grow(this.#source, capacity);
    this.#state = grow(this.#state, capacity);
  }

  /** Move the kept rows to the front, dropping removed ones. */
  #compact(): void {
    let to = 0;
    this.#slotOf.clear();
    for (let from = 0; from < this.#rows; from++) {
      if (this.#state[from] === REMOVED) continue;
      const rowid = this.#rowids[from] as number;
      if (to !== from) {
        this.#data.copyWithin(to * this.dims, from * this.dims, (from + 1) * this.dims);
        this.#rowids[to] = rowid;
        this.#tier[to] = this.#tier[from] as number;
        this.#source[to] = this.#source[from] as number;
        this.#state[to] = this.#state[from] as number;
      }
      this.#slotOf.set(rowid, to);
      to++;
    }
    this.#rows = to;
    this.#dead = 0;
  }
}

function hasNorm(vector: Float32Array): boolean {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) ** 2;
  return norm > 0 && Number.isFinite(norm);
}
