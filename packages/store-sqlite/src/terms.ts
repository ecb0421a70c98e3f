import { CHARACTER_TERM_WEIGHT, isCharacterTerm, TermCountReader } from "@engram/core/driver";

// A chunk's analysed terms as the store keeps them: a term-count blob in `chunk_terms` (core's
// codec, over the ids of `term_ids`), and the two texts of its FTS5 row.

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
 * Blobs a scan reads as hex text (SQLite's `hex()`), decoded one after another into one buffer
 * reused from page to page. On purpose: better-sqlite3 makes each blob a Buffer, memory outside
 * V8's heap that is freed only once V8 collects its wrapper, which at 100k chunks let ~60 MB of
 * dead vectors pile up (and glibc kept the memory); short strings are young-generation garbage
 * that a scavenge frees within a few pages.
 */
export class HexBlobs {
  /** The decoded bytes (a float32 view of it holds whole vectors: each blob is 4-byte aligned). */
  bytes = new Uint8Array(0);
  /** Where each blob ends in {@link bytes} (a null one is empty). */
  ends = new Uint32Array(256);

  /** Decode `hexes` (null: no blob); a page's blobs stay valid until the next call. */
  read(hexes: ReadonlyArray<string | null>): this {
    let total = 0;
    for (const hex of hexes) total += hex ? hex.length / 2 : 0;
    if (total > this.bytes.length) this.bytes = new Uint8Array(total + 4096);
    if (hexes.length > this.ends.length) this.ends = new Uint32Array(hexes.length);
    const out = this.bytes;
    let pos = 0;
    for (const [i, hex] of hexes.entries()) {
      for (let at = 0; hex && at < hex.length; at += 2) {
        out[pos++] =
          ((HEX_VALUES[hex.charCodeAt(at)] as number) << 4) |
          (HEX_VALUES[hex.charCodeAt(at + 1)] as number);
      }
      this.ends[i] = pos;
    }
    return this;
  }
}
