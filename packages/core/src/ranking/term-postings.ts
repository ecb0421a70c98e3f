import { varintLength, writeVarint } from "../driver/term-counts.js";
import { bm25Idf, bm25Term, countWeight } from "./bm25.js";
import { resized } from "./chunk-slots.js";
import { TermTable } from "./term-table.js";

/** Postings kept in the append log before they are merged into the compact bytes. */
const MIN_LOG_POSTINGS = 1 << 20;

/**
 * An inverted index of the chunks' terms, scored with engram's BM25 (see `bm25.ts`).
 *
 * Each term's postings are (slot, count) pairs. Most live in one byte array, as varints of the
 * slot difference and the count, ordered by term then slot (2–3 bytes a posting); postings added
 * since go to an append log of typed arrays linked per term, and are merged into the bytes once
 * the log grows past a quarter of them. Removing a chunk only marks its slot dead (the caller's
 * live flags): its postings are skipped when scoring and dropped at the next merge, and a term's
 * document frequency is recounted the first time it is asked for after a removal.
 */
export class TermPostings {
  readonly #termIds = new TermTable();
  /** Per slot: the chunk's number of terms (BM25's document length). */
  #lengths = new Uint32Array(1024);
  /** Chunks holding at least one term, and their terms: N and avgLen's numerator. */
  #rows = 0;
  #tokens = 0;
  /** Per term id: live chunks holding it, as of removal epoch `#dfEpoch[id]`. */
  #df = new Int32Array(1024);
  #dfEpoch = new Int32Array(1024);
  #epoch = 0;
  /** Per term id: its bulk postings are bytes `#offsets[id]` to `#offsets[id + 1]`. */
  #offsets = new Uint32Array(2);
  #bytes = new Uint8Array(0);
  #bulkPostings = 0;
  /** The append log: per entry slot, count and the next entry of the same term (-1: none). */
  #logSlot = new Int32Array(1024);
  #logCount = new Int32Array(1024);
  #logNext = new Int32Array(1024);
  /** Per term id: its first and last log entries (-1: none). */
  #logFirst = new Int32Array(1024).fill(-1);
  #logLast = new Int32Array(1024).fill(-1);
  #logSize = 0;
  /**
   * A bulk load under way: per term id, the bytes of its postings (pass 1) or the next byte to
   * write (pass 2, once `ends` holds the offsets), and the slot of its last posting.
   */
  #bulk:
    | { sizes: Uint32Array; previous: Int32Array; postings: number; ends?: Uint32Array }
    | undefined;
  /** Scoring scratch: per slot score (0: untouched) and the slots touched. */
  #scores = new Float64Array(1024);
  #touched = new Int32Array(1024);

  /** Chunks holding at least one term (N). */
  get rows(): number {
    return this.#rows;
  }

  /** Distinct terms ever held. */
  get terms(): number {
    return this.#termIds.size;
  }

  /** Bytes held. */
  get bytes(): number {
    return (
      this.#bytes.length +
      this.#offsets.length * 4 +
      this.#df.length * 8 +
      this.#logFirst.length * 8 +
      this.#logSlot.length * 12 +
      this.#lengths.length * (4 + 8 + 4) +
      this.#termIds.bytes
    );
  }

  /** Index the chunk in `slot` (a new slot) with its analysed terms. */
  add(slot: number, terms: readonly string[]): void {
    this.#ensureSlots(slot + 1);
    this.#lengths[slot] = terms.length;
    if (terms.length === 0) return;
    this.#rows++;
    this.#tokens += terms.length;
    const counts = new Map<number, number>();
    for (const term of terms) {
      const id = this.#termId(term);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, count] of counts) {
      this.#df[id] = (this.#df[id] as number) + 1;
      if (this.#logSize === this.#logSlot.length) this.#growLog(this.#logSize * 2);
      const entry = this.#logSize++;
      this.#logSlot[entry] = slot;
      this.#logCount[entry] = count;
      this.#logNext[entry] = -1;
      const last = this.#logLast[id] as number;
      if (last < 0) this.#logFirst[id] = entry;
      else this.#logNext[last] = entry;
      this.#logLast[id] = entry;
    }
  }

  /**
   * Pass 1 of a bulk load into empty postings ({@link bulkWrite} is pass 2): note that the chunk
   * in `slot` (slots counted in order from 0) holds terms `ids[i]` `counts[i]` times, for `i` from
   * `start` to `end`, each id once, so the compact bytes can be laid out before any is written.
   */
  bulkCount(slot: number, ids: Int32Array, counts: Int32Array, start: number, end: number): void {
    if (slot === 0) {
      if (this.#rows !== 0 || this.#bulkPostings !== 0 || this.#logSize !== 0) {
        throw new Error("a bulk load needs empty postings");
      }
      this.#bulk = {
        sizes: new Uint32Array(this.#df.length),
        previous: new Int32Array(this.#df.length),
        postings: 0,
      };
    }
    const bulk = this.#bulk;
    if (!bulk) throw new Error("a bulk load starts at slot 0");
    this.#ensureSlots(slot + 1);
    if (bulk.sizes.length < this.#df.length) {
      bulk.sizes = resized(bulk.sizes, this.#df.length);
      bulk.previous = resized(bulk.previous, this.#df.length);
    }
    const { sizes, previous } = bulk;
    let length = 0;
    for (let i = start; i < end; i++) {
      const id = ids[i] as number;
      const count = counts[i] as number;
      length += count;
      this.#df[id] = (this.#df[id] as number) + 1;
      sizes[id] =
        (sizes[id] as number) + varintLength(slot - (previous[id] as number)) + varintLength(count);
      previous[id] = slot;
    }
    bulk.postings += end - start;
    this.#lengths[slot] = length;
    if (length === 0) return;
    this.#rows++;
    this.#tokens += length;
  }

  /**
   * Pass 2 of a bulk load: write the postings {@link bulkCount} noted, chunk by chunk in the same
   * order (the compact bytes are allocated at the first call). Throws when they differ from what
   * pass 1 noted (the source changed between the passes: the load is to be thrown away).
   */
  bulkWrite(slot: number, ids: Int32Array, counts: Int32Array, start: number, end: number): void {
    const bulk = this.#bulk;
    if (!bulk) throw new Error("bulkWrite before bulkCount");
    if (!bulk.ends) {
      const termCount = this.#termIds.size;
      const offsets = new Uint32Array(termCount + 2);
      for (let id = 0; id < termCount; id++) {
        offsets[id + 1] = (offsets[id] as number) + (bulk.sizes[id] as number);
      }
      offsets[termCount + 1] = offsets[termCount] as number;
      this.#bytes = new Uint8Array(offsets[termCount] as number);
      this.#offsets = offsets;
      // From here on `sizes` is each term's write position.
      bulk.sizes.set(offsets.subarray(0, termCount));
      bulk.previous.fill(0);
      bulk.ends = offsets;
    }
    const { sizes: at, previous, ends } = bulk;
    const bytes = this.#bytes;
    let length = 0;
    for (let i = start; i < end; i++) {
      const id = ids[i] as number;
      const count = counts[i] as number;
      length += count;
      let pos = at[id] as number;
      const delta = slot - (previous[id] as number);
      if (
        id + 1 >= ends.length ||
        pos + varintLength(delta) + varintLength(count) > (ends[id + 1] as number)
      ) {
        throw new Error("the postings changed between the passes of a bulk load");
      }
      pos = writeVarint(bytes, pos, delta);
      at[id] = writeVarint(bytes, pos, count);
      previous[id] = slot;
    }
    if (length !== this.#lengths[slot]) {
      throw new Error("the postings changed between the passes of a bulk load");
    }
  }

  /** Finish a bulk load: every posting pass 1 noted was written (else throws, as {@link bulkWrite}). */
  bulkDone(): void {
    const bulk = this.#bulk;
    if (!bulk) return;
    this.#bulk = undefined;
    const termCount = this.#termIds.size;
    if (!bulk.ends) {
      if (bulk.postings > 0)
        throw new Error("the postings changed between the passes of a bulk load");
      return;
    }
    for (let id = 0; id < termCount; id++) {
      if (bulk.sizes[id] !== bulk.ends[id + 1]) {
        throw new Error("the postings changed between the passes of a bulk load");
      }
      this.#dfEpoch[id] = this.#epoch;
    }
    this.#bulkPostings = bulk.postings;
  }

  /** The chunk in `slot` was removed (its slot is now dead in the caller's live flags). */
  remove(slot: number): void {
    const length = this.#lengths[slot] as number;
    if (length === 0) return;
    this.#rows--;
    this.#tokens -= length;
    this.#epoch++;
  }

  /** True when the log is large enough to merge into the compact bytes. */
  get mergeDue(): boolean {
    return this.#logSize >= Math.max(MIN_LOG_POSTINGS, this.#bulkPostings / 4);
  }

  /**
   * Live chunks holding `term` (0 when none or unknown).
   *
   * @param live Per slot: 1 while the chunk is live.
   */
  docFreq(term: string, live: Uint8Array): number {
    const id = this.#termIds.get(term);
    if (id === undefined) return 0;
    if (this.#dfEpoch[id] !== this.#epoch) {
      let df = 0;
      this.#each(id, (slot) => {
        if (live[slot] === 1) df++;
      });
      this.#df[id] = df;
      this.#dfEpoch[id] = this.#epoch;
    }
    return this.#df[id] as number;
  }

  /**
   * Score every live chunk holding any of `terms` (unique, in query order) with BM25, and pass
   * each one `accept` keeps to `hit`.
   */
  score(
    terms: readonly string[],
    live: Uint8Array,
    accept: ((slot: number) => boolean) | undefined,
    hit: (slot: number, score: number) => void,
  ): void {
    if (this.#rows === 0) return;
    const scores = this.#scores;
    const touched = this.#touched;
    const lengths = this.#lengths;
    const avgLength = this.#tokens / this.#rows;
    let touchedCount = 0;
    for (const term of terms) {
      const id = this.#termIds.get(term);
      if (id === undefined) continue;
      const idf = bm25Idf(this.#rows, this.docFreq(term, live));
      const weight = countWeight(term);
      // Bulk postings, then the log; the varint reads are inlined (this is most of a search).
      const bytes = this.#bytes;
      let pos = id + 1 < this.#offsets.length ? (this.#offsets[id] as number) : 0;
      const end = id + 1 < this.#offsets.length ? (this.#offsets[id + 1] as number) : 0;
      let slot = 0;
      let entry = id < this.#logFirst.length ? (this.#logFirst[id] as number) : -1;
      for (;;) {
        let count: number;
        if (pos < end) {
          let byte = bytes[pos++] as number;
          let value = byte & 0x7f;
          for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
            byte = bytes[pos++] as number;
            value += (byte & 0x7f) * scale;
          }
          slot += value;
          byte = bytes[pos++] as number;
          count = byte & 0x7f;
          for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
            byte = bytes[pos++] as number;
            count += (byte & 0x7f) * scale;
          }
        } else if (entry >= 0) {
          slot = this.#logSlot[entry] as number;
          count = this.#logCount[entry] as number;
          entry = this.#logNext[entry] as number;
        } else {
          break;
        }
        if (live[slot] !== 1) continue;
        const previous = scores[slot] as number;
        if (previous === 0) touched[touchedCount++] = slot;
        scores[slot] = previous + bm25Term(idf, count * weight, lengths[slot] as number, avgLength);
      }
    }
    for (let i = 0; i < touchedCount; i++) {
      const slot = touched[i] as number;
      const score = scores[slot] as number;
      scores[slot] = 0;
      if (!accept || accept(slot)) hit(slot, score);
    }
  }

  /**
   * Merge the log into the compact bytes, dropping dead slots' postings and renumbering slots by
   * `remap` (old slot → new, -1: dead) when given.
   *
   * @param live Per old slot: 1 while live.
   * @param slots Slots in use after the remap.
   */
  merge(live: Uint8Array, remap: Int32Array | undefined, slots: number): void {
    const termCount = this.#termIds.size;
    const sizes = new Uint32Array(termCount + 1);
    let postings = 0;
    const target = (slot: number) =>
      remap ? (remap[slot] as number) : live[slot] === 1 ? slot : -1;
    for (let id = 0; id < termCount; id++) {
      let size = 0;
      let previous = 0;
      let df = 0;
      this.#each(id, (slot, count) => {
        const to = target(slot);
        if (to < 0) return;
        size += varintLength(to - previous) + varintLength(count);
        previous = to;
        df++;
      });
      sizes[id] = size;
      this.#df[id] = df;
      this.#dfEpoch[id] = this.#epoch;
      postings += df;
    }
    const offsets = new Uint32Array(termCount + 2);
    for (let id = 0; id < termCount; id++) {
      offsets[id + 1] = (offsets[id] as number) + (sizes[id] as number);
    }
    offsets[termCount + 1] = offsets[termCount] as number;
    const bytes = new Uint8Array(offsets[termCount] as number);
    for (let id = 0; id < termCount; id++) {
      let pos = offsets[id] as number;
      let previous = 0;
      this.#each(id, (slot, count) => {
        const to = target(slot);
        if (to < 0) return;
        pos = writeVarint(bytes, pos, to - previous);
        pos = writeVarint(bytes, pos, count);
        previous = to;
      });
    }
    if (remap) {
      const lengths = new Uint32Array(Math.max(1024, slots));
      for (let slot = 0; slot < remap.length; slot++) {
        const to = remap[slot] as number;
        if (to >= 0) lengths[to] = this.#lengths[slot] as number;
      }
      this.#lengths = lengths;
      this.#scores = new Float64Array(lengths.length);
      this.#touched = new Int32Array(lengths.length);
    }
    this.#offsets = offsets;
    this.#bytes = bytes;
    this.#bulkPostings = postings;
    this.#logFirst.fill(-1);
    this.#logLast.fill(-1);
    this.#logSize = 0;
    this.#growLog(1024, true);
  }

  /** Forget every chunk (term ids stay numbered). */
  clear(): void {
    this.#rows = 0;
    this.#tokens = 0;
    this.#df.fill(0);
    this.#epoch++;
    this.#offsets = new Uint32Array(this.#termIds.size + 2);
    this.#bytes = new Uint8Array(0);
    this.#bulkPostings = 0;
    this.#logFirst.fill(-1);
    this.#logLast.fill(-1);
    this.#logSize = 0;
    this.#lengths.fill(0);
    this.#bulk = undefined;
  }

  /** Call `fn` with each posting of term `id` (bulk, then log), slots ascending within each. */
  #each(id: number, fn: (slot: number, count: number) => void): void {
    const bytes = this.#bytes;
    if (id + 1 < this.#offsets.length) {
      let pos = this.#offsets[id] as number;
      const end = this.#offsets[id + 1] as number;
      let slot = 0;
      while (pos < end) {
        // Inlined varint reads: this loop is most of a keyword search's time.
        let byte = bytes[pos++] as number;
        let value = byte & 0x7f;
        for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
          byte = bytes[pos++] as number;
          value += (byte & 0x7f) * scale;
        }
        slot += value;
        byte = bytes[pos++] as number;
        let count = byte & 0x7f;
        for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
          byte = bytes[pos++] as number;
          count += (byte & 0x7f) * scale;
        }
        fn(slot, count);
      }
    }
    let entry = id < this.#logFirst.length ? (this.#logFirst[id] as number) : -1;
    for (; entry >= 0; entry = this.#logNext[entry] as number) {
      fn(this.#logSlot[entry] as number, this.#logCount[entry] as number);
    }
  }

  /** The id of `term` in these postings, numbered now when new. */
  termId(term: string): number {
    return this.#termId(term);
  }

  #termId(term: string): number {
    const known = this.#termIds.size;
    const id = this.#termIds.add(term);
    if (id === known) {
      if (id >= this.#df.length) {
        const size = this.#df.length * 2;
        this.#df = resized(this.#df, size);
        this.#dfEpoch = resized(this.#dfEpoch, size);
        const first = new Int32Array(size).fill(-1);
        first.set(this.#logFirst);
        this.#logFirst = first;
        const last = new Int32Array(size).fill(-1);
        last.set(this.#logLast);
        this.#logLast = last;
      }
      this.#dfEpoch[id] = this.#epoch;
    }
    return id;
  }

  #ensureSlots(count: number): void {
    if (count <= this.#lengths.length) return;
    const size = Math.max(count, this.#lengths.length * 2);
    this.#lengths = resized(this.#lengths, size);
    this.#scores = resized(this.#scores, size);
    this.#touched = resized(this.#touched, size);
  }

  #growLog(size: number, reset = false): void {
    if (reset) {
      this.#logSlot = new Int32Array(size);
      this.#logCount = new Int32Array(size);
      this.#logNext = new Int32Array(size);
      return;
    }
    this.#logSlot = resized(this.#logSlot, size);
    this.#logCount = resized(this.#logCount, size);
    this.#logNext = resized(this.#logNext, size);
  }
}
