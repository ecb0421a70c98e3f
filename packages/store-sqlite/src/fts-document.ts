import { TermCountReader } from "./term-counts.js";

/**
 * The FTS5 table's column and options (schema 5 on): contentless, so a deleted row's terms must be
 * given back to it ({@link countsDocument}), which keeps its BM25 totals exact. Terms come analysed
 * by core (letters, marks and numbers only, joined by one space); the ascii tokenizer splits them
 * on the spaces and keeps every non-ASCII character, so it reproduces them exactly. Never
 * re-analyse here.
 */
export const FTS_COLUMNS = "terms, content='', tokenize='ascii'";

/** The text the FTS5 table indexes for a chunk: its analysed terms, one space apart. */
export function termsDocument(terms: readonly string[]): string {
  return terms.join(" ");
}

/**
 * A text FTS5 tokenizes into the same terms, as often, as the chunk whose `chunk_terms` blob is
 * `blob` ({@link termsDocument} of them, in term-id order): what deleting its row must pass.
 *
 * @param termOf The term with a given id.
 */
export function countsDocument(
  blob: Uint8Array,
  termOf: (id: number) => string | undefined,
): string {
  const parts: string[] = [];
  const reader = new TermCountReader();
  for (reader.read(blob); reader.next(); ) {
    const term = termOf(reader.id);
    if (term === undefined) throw new Error(`term id ${reader.id} has no term`);
    for (let i = 0; i < reader.count; i++) parts.push(term);
  }
  return termsDocument(parts);
}
