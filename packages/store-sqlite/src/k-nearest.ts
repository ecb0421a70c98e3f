/**
 * The k-th smallest of the values added so far (Infinity until k were added): a max-heap of the k
 * smallest, O(log k) per value that enters it.
 */
export class KNearest {
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
