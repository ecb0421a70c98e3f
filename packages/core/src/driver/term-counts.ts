import type { TermCountsPage } from "../ranking/in-memory-index.js";

// A chunk's analysed terms as a store may keep them for `scanTermCounts`: (term id, count) pairs
// in one blob, ids ascending, each id as an unsigned LEB128 varint difference from the previous
// one, then its count as a varint. Counts sum to the chunk's length in tokens (BM25's document
// length). The ids are the store's own numbering (whole numbers ≥ 0).

/**
 * Encodes chunks' terms as term-count blobs, counting through arrays indexed by term id that are
 * reused from chunk to chunk.
 */
export class TermCountEncoder {
  #counts = new Int32Array(1024);
  #touched = new Int32Array(256);

  /**
   * The blob for `terms`, or undefined when `id` knows some of them not (those are added to
   * `unknown`: give them ids and encode again).
   *
   * @param known Ids to try first (a plain map lookup is most of the cost of a cold sync).
   */
  encode(
    terms: readonly string[],
    known: ReadonlyMap<string, number>,
    id: (term: string) => number | undefined,
    unknown: Set<string>,
  ): Uint8Array | undefined {
    let distinct = 0;
    let missing = false;
    for (const term of terms) {
      const termId = known.get(term) ?? id(term);
      if (termId === undefined) {
        unknown.add(term);
        missing = true;
        continue;
      }
      if (termId >= this.#counts.length) {
        this.#counts = grown(this.#counts, Math.max(termId + 1, this.#counts.length * 2));
      }
      if (this.#counts[termId] === 0) {
        if (distinct === this.#touched.length) {
          this.#touched = grown(this.#touched, this.#touched.length * 2);
        }
        this.#touched[distinct++] = termId;
      }
      this.#counts[termId] = (this.#counts[termId] as number) + 1;
    }
    const ids = this.#touched.subarray(0, distinct).sort();
    const blob = missing ? undefined : encodeTermCounts(ids, this.#counts);
    for (const termId of ids) this.#counts[termId] = 0;
    return blob;
  }
}

/** The term-count blob for `ids` (ascending) with counts `counts[id]`. */
export function encodeTermCounts(ids: ArrayLike<number>, counts: ArrayLike<number>): Uint8Array {
  let size = 0;
  for (let i = 0, previous = 0; i < ids.length; i++) {
    const termId = ids[i] as number;
    size += varintLength(termId - previous) + varintLength(counts[termId] as number);
    previous = termId;
  }
  // From Node's pool, as a Buffer: a typed array of its own per chunk is memory outside V8's heap
  // that glibc may keep after a large sync. Every byte is written below.
  const blob = Buffer.allocUnsafe(size);
  for (let i = 0, previous = 0, pos = 0; i < ids.length; i++) {
    const termId = ids[i] as number;
    pos = writeVarint(blob, pos, termId - previous);
    pos = writeVarint(blob, pos, counts[termId] as number);
    previous = termId;
  }
  return blob;
}

/** Reads the (term id, count) pairs of term-count blobs in order. */
export class TermCountReader {
  /** The pair just read by {@link next}. */
  id = 0;
  count = 0;
  #bytes: Uint8Array = new Uint8Array(0);
  #pos = 0;
  #end = 0;

  /** Start reading `blob` (or its bytes from `start` to `end`). */
  read(blob: Uint8Array, start = 0, end = blob.length): this {
    this.#bytes = blob;
    this.#pos = start;
    this.#end = end;
    this.id = 0;
    return this;
  }

  /** Read the next pair into {@link id} and {@link count}; false when the blob is done. */
  next(): boolean {
    if (this.#pos >= this.#end) return false;
    this.id += this.#varint();
    this.count = this.#varint();
    return true;
  }

  /** The next varint; throws when the blob ends before it does. */
  #varint(): number {
    let value = 0;
    for (let scale = 1; ; scale *= 0x80) {
      if (this.#pos >= this.#end) throw new RangeError("varint cut off by the end of its bytes");
      const byte = this.#bytes[this.#pos++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  }
}

/**
 * Turns pages of term-count blobs into core's {@link TermCountsPage} for a store's
 * `scanTermCounts`: per chunk the end of its pairs, then the term ids and counts, in arrays reused
 * from page to page. Keeps which ids the scan has named, so the store names each once.
 */
export class TermCountPages {
  #ends = new Uint32Array(1024);
  #ids = new Int32Array(1 << 16);
  #counts = new Int32Array(1 << 16);
  #named = new Uint8Array(1024);
  readonly #reader = new TermCountReader();

  /**
   * The page of `size` chunks whose blobs lie one after another in `bytes`, chunk `i`'s ending at
   * `blobEnds[i]` (an empty one: no terms), and the ids on it not named before (now counted as
   * named: name them on this page).
   */
  read(
    bytes: Uint8Array,
    blobEnds: ArrayLike<number>,
    size: number,
  ): { page: TermCountsPage; unnamed: number[] } {
    if (size > this.#ends.length) this.#ends = new Uint32Array(size);
    // A pair takes two bytes at least: the bytes bound the pairs.
    const total = size ? (blobEnds[size - 1] as number) : 0;
    if (total / 2 > this.#ids.length) {
      this.#ids = new Int32Array(Math.ceil(total / 2) + 1024);
      this.#counts = new Int32Array(this.#ids.length);
    }
    const ids = this.#ids;
    const counts = this.#counts;
    const unnamed: number[] = [];
    const reader = this.#reader;
    let n = 0;
    for (let i = 0, start = 0; i < size; i++) {
      const end = blobEnds[i] as number;
      for (reader.read(bytes, start, end); reader.next(); n++) {
        const id = reader.id;
        ids[n] = id;
        counts[n] = reader.count;
        if (id >= this.#named.length) {
          this.#named = grown(this.#named, Math.max(id + 1, this.#named.length * 2));
        }
        if (this.#named[id] === 0) {
          this.#named[id] = 1;
          unnamed.push(id);
        }
      }
      this.#ends[i] = n;
      start = end;
    }
    return { page: { size, ends: this.#ends, ids, counts }, unnamed };
  }
}

/** A typed array of `size` elements holding `old`'s first ones. */
function grown<T extends Uint8Array | Int32Array>(old: T, size: number): T {
  const next = new (old.constructor as new (n: number) => T)(size);
  next.set(old.subarray(0, Math.min(old.length, size)));
  return next;
}

/** Bytes {@link writeVarint} takes for `value` (an unsigned LEB128 varint, up to 2^53 − 1). */
export function varintLength(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  let bytes = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) bytes++;
  return bytes;
}

/** Write `value` at `pos` as a varint (the buffer must have room); returns the position after it. */
export function writeVarint(buffer: Uint8Array, pos: number, value: number): number {
  let v = value;
  let at = pos;
  while (v >= 0x80) {
    buffer[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buffer[at++] = v;
  return at;
}
