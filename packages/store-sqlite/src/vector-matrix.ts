import {
  type ChunkPredicate,
  type Filterable,
  KERNEL_SLACK,
  KthSmallest,
  quantize,
} from "@engram/core/driver";
import { cosineDistance } from "./cosine-distance.js";
import type { SimdScan } from "./simd-scan.js";
import { resized, SlotLabels } from "./slot-labels.js";

/** A row found by {@link VectorMatrix.nearest}: the chunk's rowid and its cosine distance. */
export interface MatrixHit {
  rowid: number;
  distance: number;
}

/** The float32 vector of a row, read where the vectors are kept (undefined: none). */
export type VectorSource = (rowid: number) => Float32Array | undefined;

const INITIAL_CAPACITY = 1024;
const REMOVED = 0;
const LIVE = 1;
const ZERO = 2;

/**
 * An in-memory int8 copy of the index's vectors (one row per embedded chunk, with its rowid, path,
 * tier and source, so every search filter applies while scanning) that answers exact cosine k-NN: a SIMD scan of the int8 rows finds candidates, the
 * float32 vectors of the candidates (from a {@link VectorSource}) give their exact distances, and
 * the rounding bound proves that no row left out could be nearer (see {@link nearest}). A quarter
 * of the memory of a float32 copy, and a quarter of the bytes each search reads.
 *
 * It is a cache of the index's vectors: the store loads it, keeps it in step with its own writes
 * and reloads it when another connection changed the vectors (see `VectorIndex`).
 */
export class VectorMatrix {
  #data: Int8Array;
  #rowids: Float64Array;
  #labels: SlotLabels;
  /** Per slot: {@link LIVE}, {@link ZERO} (held, never returned: no cosine) or {@link REMOVED}. */
  #state: Uint8Array;
  #slotOf = new Map<number, number>();
  #rows = 0;
  #dead = 0;
  /** Largest rounding angle of any row ever held (removals never lower it: still a bound). */
  #rounding = 0;

  constructor(
    readonly dims: number,
    private readonly scan: SimdScan,
    capacity = INITIAL_CAPACITY,
  ) {
    const n = Math.max(1, capacity);
    this.#data = new Int8Array(n * dims);
    this.#rowids = new Float64Array(n);
    this.#labels = new SlotLabels(n);
    this.#state = new Uint8Array(n);
  }

  /** Vectors held (removed rows excluded). */
  get size(): number {
    return this.#slotOf.size;
  }

  /** Add (or replace) the vector of `rowid`, a chunk with this path, tier and source. */
  set(rowid: number, vector: ArrayLike<number>, chunk: Filterable): void {
    this.remove(rowid);
    if (this.#rows === this.#rowids.length) this.#resize(this.#rows * 2);
    const slot = this.#rows++;
    const rounding = quantize(
      vector,
      this.#data.subarray(slot * this.dims, (slot + 1) * this.dims),
    );
    this.#rowids[slot] = rowid;
    this.#labels.set(slot, chunk);
    this.#state[slot] = Number.isNaN(rounding) ? ZERO : LIVE;
    if (rounding > this.#rounding) this.#rounding = rounding;
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
   * Rows accepted by `accept` (all when undefined) with their exact distances (from `exact`'s
   * float32 vectors), nearest first: at least the `k` nearest of them plus every row as near as the
   * `k`-th (the caller orders ties).
   *
   * The int8 scan returns rows in order of their approximate distance, which is within
   * `bound` = (largest row rounding angle + the query's + {@link KERNEL_SLACK}) of the exact one.
   * Rows are rescored in that order until the next approximate distance exceeds the k-th exact
   * distance found + `bound`: no row from there on can be as near. When the scanned rows run out
   * first, the scan widens (×4) until that holds or every row was scanned.
   *
   * @param giveUpBelow When a scan could not prove the answer and fewer than this share of its
   *   rows passed `accept`, return undefined instead of widening: a filter that selective is
   *   answered faster by the caller's index (default 0: never give up).
   */
  nearest(
    query: Float32Array,
    k: number,
    accept: ChunkPredicate | undefined,
    exact: VectorSource,
  ): MatrixHit[];
  nearest(
    query: Float32Array,
    k: number,
    accept: ChunkPredicate | undefined,
    exact: VectorSource,
    giveUpBelow: number,
  ): MatrixHit[] | undefined;
  nearest(
    query: Float32Array,
    k: number,
    accept: ChunkPredicate | undefined,
    exact: VectorSource,
    giveUpBelow = 0,
  ): MatrixHit[] | undefined {
    if (this.#rows === 0 || k < 1) return [];
    const image = new Int8Array(this.dims);
    const rounding = quantize(query, image);
    if (Number.isNaN(rounding)) return [];
    const bound = this.#rounding + rounding + KERNEL_SLACK;
    const matrix = this.#data.subarray(0, this.#rows * this.dims);
    const known = new Map<number, number>(); // rowid → exact distance, kept across widenings
    for (let count = Math.min(this.#rows, 8 * k + 64); ; count = Math.min(this.#rows, count * 4)) {
      const { positions, distances } = this.scan(matrix, image, this.dims, count);
      const hits: MatrixHit[] = [];
      const nearest = new KthSmallest(k);
      let proven = false;
      let live = 0;
      let accepted = 0;
      for (let i = 0; i < positions.length; i++) {
        const slot = Number(positions[i]);
        if (this.#state[slot] !== LIVE) continue;
        if ((distances[i] as number) > nearest.kth + bound) {
          proven = true;
          break;
        }
        live++;
        if (accept && !accept(this.#labels.chunk(slot))) continue;
        accepted++;
        const rowid = this.#rowids[slot] as number;
        let distance = known.get(rowid);
        if (distance === undefined) {
          const vector = exact(rowid);
          distance = vector ? cosineDistance(query, vector) : Number.NaN;
          known.set(rowid, distance);
        }
        if (Number.isNaN(distance)) continue;
        hits.push({ rowid, distance });
        nearest.add(distance);
      }
      // Either every scanned row was rescored, and rows not scanned are at least as far as the
      // last one, or the scan reached a row too far to matter.
      if (proven || count >= this.#rows || (distances.at(-1) as number) > nearest.kth + bound) {
        return hits.sort((a, b) => a.distance - b.distance);
      }
      if (accepted < giveUpBelow * live) return undefined;
    }
  }

  #resize(capacity: number): void {
    this.#data = resized(this.#data, capacity * this.dims);
    this.#rowids = resized(this.#rowids, capacity);
    this.#labels.resize(capacity);
    this.#state = resized(this.#state, capacity);
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
        this.#labels.move(from, to);
        this.#state[to] = this.#state[from] as number;
      }
      this.#slotOf.set(rowid, to);
      to++;
    }
    this.#rows = to;
    this.#dead = 0;
  }
}
