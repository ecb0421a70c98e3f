import { CHARACTER_TERM_WEIGHT, isCharacterTerm, type TermCountsPage } from "@engram/core/driver";

// A chunk's analysed terms as the store keeps them: (term id, count) pairs in `chunk_terms`
// (varint-encoded), and the two texts of its FTS5 row.

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

/**
 * Decodes pages of `chunk_terms` blobs for a term-count scan (core's `TermCountsPage`): per chunk
 * the end of its pairs, then the term ids and counts, in arrays reused from page to page. Also
 * keeps which ids the scan has named, so each is named once.
 */
export class TermCountPages {
  #ends = new Uint32Array(1024);
  #bytes = new Uint8Array(4096);
  #ids = new Int32Array(1 << 16);
  #counts = new Int32Array(1 << 16);
  #named: Uint8Array<ArrayBuffer> = new Uint8Array(1024);
  readonly #reader = new TermCountReader();

  /**
   * The page of chunks whose `chunk_terms` blobs are `hexes` (SQLite's `hex()`; null: a chunk
   * without terms), and the ids on it not named before (now counted as named: name them on this
   * page).
   */
  read(hexes: ReadonlyArray<string | null>): { page: TermCountsPage; unnamed: number[] } {
    if (hexes.length > this.#ends.length) this.#ends = new Uint32Array(hexes.length);
    let total = 0;
    for (const hex of hexes) total += hex ? hex.length / 2 : 0;
    if (total > this.#bytes.length) this.#bytes = new Uint8Array(total + 4096);
    // A pair takes two bytes at least: the bytes bound the pairs.
    if (total / 2 > this.#ids.length) {
      this.#ids = new Int32Array(Math.ceil(total / 2) + 1024);
      this.#counts = new Int32Array(this.#ids.length);
    }
    const bytes = this.#bytes;
    const ids = this.#ids;
    const counts = this.#counts;
    const unnamed: number[] = [];
    const reader = this.#reader;
    let n = 0;
    for (const [i, hex] of hexes.entries()) {
      const end = hex ? hexInto(hex, bytes, 0) : 0;
      for (reader.read(bytes, 0, end); reader.next(); n++) {
        const id = reader.id;
        ids[n] = id;
        counts[n] = reader.count;
        if (id >= this.#named.length) {
          this.#named = resizedBytes(this.#named, Math.max(id + 1, this.#named.length * 2));
        }
        if (this.#named[id] === 0) {
          this.#named[id] = 1;
          unnamed.push(id);
        }
      }
      this.#ends[i] = n;
    }
    return { page: { size: hexes.length, ends: this.#ends, ids, counts }, unnamed };
  }
}

/** Value of each hex digit's character code (SQLite's `hex()` writes upper case). */
const HEX_VALUES = (() => {
  const values = new Uint8Array(128);
  for (let i = 0; i < 16; i++) {
    values["0123456789ABCDEF".charCodeAt(i)] = i;
    values["0123456789abcdef".charCodeAt(i)] = i;
  }
  return values;
})();

/**
 * Write the bytes of `hex` (SQLite's `hex()` of a blob) into `out` from `at`; returns the
 * position after them.
 *
 * A scan reads blobs as hex text on purpose: better-sqlite3 makes each blob a Buffer, memory
 * outside V8's heap that is freed only once V8 collects its wrapper, which at 100k chunks let
 * ~60 MB of dead vectors pile up (and glibc kept the memory); short strings are young-generation
 * garbage that a scavenge frees within a few pages.
 */
export function hexInto(hex: string, out: Uint8Array, at: number): number {
  let pos = at;
  for (let i = 0; i < hex.length; i += 2) {
    out[pos++] =
      ((HEX_VALUES[hex.charCodeAt(i)] as number) << 4) |
      (HEX_VALUES[hex.charCodeAt(i + 1)] as number);
  }
  return pos;
}

function resizedBytes(old: Uint8Array<ArrayBuffer>, size: number): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(size);
  next.set(old);
  return next;
}

/** A typed array of `size` elements holding the first ones of `old`. */
function resized<T extends Uint32Array | Int32Array>(old: T, size: number): T {
  const next = new (old.constructor as new (n: number) => T)(size);
  next.set(old.subarray(0, Math.min(old.length, size)));
  return next;
}

/**
 * Unsigned LEB128 varints: 7 bits a byte, low bits first, the high bit set on every byte but the
 * last. Values up to 2^53 − 1 (arithmetic, not 32-bit shifts, so none wrap).
 */

/** Bytes {@link writeVarint} takes for `value`. */
export function varintLength(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  let bytes = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) bytes++;
  return bytes;
}

/** Write `value` at `pos` (the buffer must have room); returns the position after it. */
export function writeVarint(buffer: Uint8Array, pos: number, value: number): number {
  if (value < 0x80) {
    buffer[pos] = value;
    return pos + 1;
  }
  if (value < 0x4000) {
    buffer[pos] = (value & 0x7f) | 0x80;
    buffer[pos + 1] = value >>> 7;
    return pos + 2;
  }
  let v = value;
  let at = pos;
  while (v >= 0x80) {
    buffer[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buffer[at++] = v;
  return at;
}

/** Reads varints one after another from a byte range. */
export class VarintReader {
  /** Position of the next byte to read. */
  pos: number;

  constructor(
    private bytes: Uint8Array,
    start = 0,
    private end = bytes.length,
  ) {
    this.pos = start;
  }

  /** Start over on another range. */
  reset(bytes: Uint8Array, start = 0, end = bytes.length): void {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
  }

  /** True while bytes are left. */
  get more(): boolean {
    return this.pos < this.end;
  }

  /** The next value; throws when the range ends before the varint does. */
  next(): number {
    const bytes = this.bytes;
    if (this.pos >= this.end) throw cutOff();
    let byte = bytes[this.pos++] as number;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    while (byte >= 0x80) {
      if (this.pos >= this.end) throw cutOff();
      byte = bytes[this.pos++] as number;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
    }
    return value;
  }
}

function cutOff(): RangeError {
  return new RangeError("varint cut off by the end of its bytes");
}

/**
 * The FTS5 table's columns and options (schema 6 on): `terms` holds a chunk's terms except single
 * Han and kana characters, which `chars` holds, so that `bm25()` can weigh them
 * ({@link BM25_WEIGHTS}). Contentless, so a deleted row's terms must be given back to it
 * ({@link countsDocument}), which keeps its BM25 totals exact. Terms come analysed by core
 * (letters, marks and numbers only); the ascii tokenizer splits them on the spaces and keeps every
 * non-ASCII character, so it reproduces them exactly. Never re-analyse here.
 */
export const FTS_COLUMNS = "terms, chars, content='', tokenize='ascii'";

/**
 * `bm25()`'s column weights: 1 for `terms`, core's `CHARACTER_TERM_WEIGHT` for `chars`, so a
 * character counts by presence. FTS5 adds a column's weight to a term's frequency for each
 * instance and takes the document length unweighted, over both columns.
 */
export const BM25_WEIGHTS = `1, ${CHARACTER_TERM_WEIGHT}`;

/** The texts of the FTS5 table's two columns: analysed terms, one space apart. */
export type FtsDocument = [terms: string, chars: string];

/** What the FTS5 table indexes for a chunk with these terms (see {@link FTS_COLUMNS}). */
export function termsDocument(terms: readonly string[]): FtsDocument {
  const words: string[] = [];
  const chars: string[] = [];
  for (const term of terms) (isCharacterTerm(term) ? chars : words).push(term);
  return [words.join(" "), chars.join(" ")];
}

/**
 * Texts FTS5 tokenizes into the same terms, as often, as the chunk whose `chunk_terms` blob is
 * `blob` ({@link termsDocument} of them, in term-id order): what deleting its row must pass.
 *
 * @param termOf The term with a given id.
 */
export function countsDocument(
  blob: Uint8Array,
  termOf: (id: number) => string | undefined,
): FtsDocument {
  const parts: string[] = [];
  const reader = new TermCountReader();
  for (reader.read(blob); reader.next(); ) {
    const term = termOf(reader.id);
    if (term === undefined) throw new Error(`term id ${reader.id} has no term`);
    for (let i = 0; i < reader.count; i++) parts.push(term);
  }
  return termsDocument(parts);
}
