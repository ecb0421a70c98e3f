import { resized } from "./chunk-slots.js";

/** Most ids a table of `capacity` slots holds before it grows (3/4 full). */
const maxIds = (capacity: number) => (capacity >> 2) * 3;

/**
 * Terms numbered 0, 1, 2, … in the order first met: the term dictionary of {@link TermPostings},
 * kept compact for the hundreds of thousands of terms of a large index.
 *
 * A `Map<string, number>` costs ~60 bytes a term (a V8 string and a hash-table entry of three
 * words); here the terms' UTF-16 code units follow each other in one array, with each term's
 * start and hash, and the lookup is an open-addressing table of ids (linear probing, at most 3/4
 * full): ~25 bytes a term, in four typed arrays.
 */
export class TermTable {
  /** The terms' code units, one after another; term `id` is `#chars[#starts[id]…#starts[id+1]]`. */
  #chars = new Uint16Array(4096);
  #starts = new Uint32Array(1024);
  #hashes = new Uint32Array(1024);
  /** Per slot: the id there plus one (0: empty). */
  #slots = new Int32Array(2048);
  #size = 0;

  /** Terms held. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held by the arrays. */
  get bytes(): number {
    return (
      this.#chars.byteLength +
      this.#starts.byteLength +
      this.#hashes.byteLength +
      this.#slots.byteLength
    );
  }

  /** The id of `term`, or undefined when not held. */
  get(term: string): number | undefined {
    const id = this.#find(term, hashOf(term));
    return id < 0 ? undefined : id;
  }

  /** The id of `term`, numbered now (the next id) when new. */
  add(term: string): number {
    const hash = hashOf(term);
    const found = this.#find(term, hash);
    if (found >= 0) return found;
    const id = this.#size;
    if (id + 1 >= this.#starts.length) {
      this.#starts = resized(this.#starts, this.#starts.length * 2);
      this.#hashes = resized(this.#hashes, this.#starts.length);
    }
    const start = this.#starts[id] as number;
    const end = start + term.length;
    if (end > this.#chars.length) {
      this.#chars = resized(this.#chars, Math.max(end, Math.ceil(this.#chars.length * 1.5)));
    }
    const chars = this.#chars;
    for (let i = 0; i < term.length; i++) chars[start + i] = term.charCodeAt(i);
    this.#starts[id + 1] = end;
    this.#hashes[id] = hash;
    this.#size = id + 1;
    if (this.#size > maxIds(this.#slots.length)) this.#rehash(this.#slots.length * 2);
    else this.#place(id, hash);
    return id;
  }

  /** The id of `term` (hashed `hash`), or -1. */
  #find(term: string, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    const chars = this.#chars;
    const starts = this.#starts;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = slots[at] as number;
      if (entry === 0) return -1;
      const id = entry - 1;
      if (this.#hashes[id] !== hash) continue;
      const start = starts[id] as number;
      if ((starts[id + 1] as number) - start !== term.length) continue;
      let same = true;
      for (let i = 0; i < term.length; i++) {
        if (chars[start + i] !== term.charCodeAt(i)) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
  }

  #place(id: number, hash: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let at = hash & mask;
    while (slots[at] !== 0) at = (at + 1) & mask;
    slots[at] = id + 1;
  }

  #rehash(capacity: number): void {
    this.#slots = new Int32Array(capacity);
    for (let id = 0; id < this.#size; id++) this.#place(id, this.#hashes[id] as number);
  }
}

/** FNV-1a over the UTF-16 code units, with a final mix so the low bits index well. */
function hashOf(term: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}
