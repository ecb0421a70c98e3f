import { VarintReader, varintLength, writeVarint } from "./varint.js";

/**
 * Encodes a chunk's terms as the `chunk_terms` table stores them: (term id, count) pairs, ids
 * ascending, each id as a varint difference from the previous one, then its count as a varint.
 * Counts sum to the chunk's length in tokens (FTS5's document length for BM25). Counting goes
 * through arrays indexed by term id, reused from chunk to chunk.
 */
export class TermCountEncoder {
  #counts = new Int32Array(1024);
  #touched = new Int32Array(256);

  /**
   * The blob for `terms`, or undefined when `id` knows some of them not (those are added to
   * `unknown`: give them ids and encode again).
   *
   * @param known Ids to try first (a plain map lookup is most of the cost of a cold sync here).
   */
  encode(
    terms: readonly string[],
    known: ReadonlyMap<string, number>,
    id: (term: string) => number | undefined,
    unknown: Set<string>,
  ): Buffer | undefined {
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
        this.#counts = resized(this.#counts, Math.max(termId + 1, this.#counts.length * 2));
      }
      const counts = this.#counts;
      if (counts[termId] === 0) {
        if (distinct === this.#touched.length) {
          this.#touched = resized(this.#touched, this.#touched.length * 2);
        }
        this.#touched[distinct++] = termId;
      }
      counts[termId] = (counts[termId] as number) + 1;
    }
    const ids = this.#touched.subarray(0, distinct).sort();
    const counts = this.#counts;
    const blob = missing ? undefined : encodeTermCounts(ids, counts);
    for (const termId of ids) counts[termId] = 0;
    return blob;
  }
}

/**
 * The blob of (term id, count) pairs for `ids` (ascending) with counts `counts[id]` (see
 * {@link TermCountEncoder}).
 */
export function encodeTermCounts(ids: ArrayLike<number>, counts: ArrayLike<number>): Buffer {
  let size = 0;
  let previous = 0;
  for (let i = 0; i < ids.length; i++) {
    const termId = ids[i] as number;
    size += varintLength(termId - previous) + varintLength(counts[termId] as number);
    previous = termId;
  }
  const blob = Buffer.allocUnsafe(size);
  let pos = 0;
  previous = 0;
  for (let i = 0; i < ids.length; i++) {
    const termId = ids[i] as number;
    pos = writeVarint(blob, pos, termId - previous);
    pos = writeVarint(blob, pos, counts[termId] as number);
    previous = termId;
  }
  return blob;
}

/** Reads the (term id, count) pairs of {@link encodeTermCounts} blobs in order. */
export class TermCountReader {
  /** The pair just read by {@link next}. */
  id = 0;
  count = 0;
  readonly #varints = new VarintReader(new Uint8Array(0));

  /** Start reading `blob` (or its bytes from `start` to `end`). */
  read(blob: Uint8Array, start = 0, end = blob.length): this {
    this.#varints.reset(blob, start, end);
    this.id = 0;
    return this;
  }

  /** Read the next pair into {@link id} and {@link count}; false when the blob is done. */
  next(): boolean {
    const varints = this.#varints;
    if (!varints.more) return false;
    this.id += varints.next();
    this.count = varints.next();
    return true;
  }
}

/** A typed array of `size` elements holding the first ones of `old`. */
function resized<T extends Uint32Array | Int32Array>(old: T, size: number): T {
  const next = new (old.constructor as new (n: number) => T)(size);
  next.set(old.subarray(0, Math.min(old.length, size)));
  return next;
}
