import { CHARACTER_TERM_WEIGHT, isCharacterTerm } from "@engram/core/driver";
import { TermCountReader } from "./term-counts.js";

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
