/**
 * Term postings over a growing list of entries: as each entry is added, the earlier entries it
 * shares terms with, and how many. A pairwise Jaccard needs no more, and pairs sharing no term are
 * never visited (3,000 long-term entries make 4.5 M pairs; few of them share anything).
 */
export class TermOverlaps {
  readonly #postings = new Map<string, number[]>();
  #added = 0;
  /** Terms shared with the entry being added, by earlier entry (zero again after each add). */
  #shared = new Int32Array(256);

  /**
   * Add the next entry's terms. Returns the earlier entries (by the order they were added, from 0)
   * sharing at least one of them, with the number shared, in ascending order.
   */
  add(terms: ReadonlySet<string>): Map<number, number> {
    if (this.#shared.length < this.#added) {
      this.#shared = new Int32Array(Math.max(this.#added, this.#shared.length * 2));
    }
    const shared = this.#shared;
    const touched: number[] = [];
    for (const term of terms) {
      for (const i of this.#postings.get(term) ?? []) {
        if (shared[i] === 0) touched.push(i);
        shared[i] = (shared[i] as number) + 1;
      }
    }
    touched.sort((a, b) => a - b);
    const out = new Map<number, number>();
    for (const i of touched) {
      out.set(i, shared[i] as number);
      shared[i] = 0;
    }
    for (const term of terms) {
      const list = this.#postings.get(term);
      if (list) list.push(this.#added);
      else this.#postings.set(term, [this.#added]);
    }
    this.#added++;
    return out;
  }
}
