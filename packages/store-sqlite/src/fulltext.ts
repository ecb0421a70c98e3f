import type { SearchFilter } from "@engram/core";
import { filterConditions } from "./filters.js";
import { type ChunkRow, chunkColumns, tieOrder } from "./rows.js";
import { FTS_TABLE } from "./schema.js";
import type { StatementCache } from "./statements.js";

/** A chunk row with its FTS5 `bm25()` value (negative; lower is better). */
export type RankedRow = ChunkRow & { rank: number };

/** The text the FTS5 table indexes for a chunk: its analysed terms, one space apart. */
export function termsDocument(terms: readonly string[]): string {
  return terms.join(" ");
}

/**
 * An FTS5 MATCH expression that matches a row holding ANY of `terms`: the unique, non-empty terms,
 * each double-quoted (quotes doubled) so FTS5 operators and punctuation are taken literally, joined
 * by OR. Undefined when no term is left (the search then has no hits).
 */
export function matchExpression(terms: readonly string[]): string | undefined {
  const unique = [...new Set(terms)].filter((term) => term.length > 0);
  if (unique.length === 0) return undefined;
  return unique.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ");
}

/** BM25 search over the terms table, with filters applied in SQL. */
export class FullTextIndex {
  constructor(private readonly statements: StatementCache) {}

  /** Best first (lowest bm25), ties by path then start line. */
  search(match: string, k: number, filter: SearchFilter | undefined): RankedRow[] {
    const where = filterConditions(filter, "c");
    const sql = `
      SELECT ${chunkColumns("c")}, bm25(${FTS_TABLE}) AS rank
      FROM ${FTS_TABLE} JOIN chunks AS c ON c.rowid = ${FTS_TABLE}.rowid
      WHERE ${FTS_TABLE} MATCH ? ${where.sql}
      ORDER BY rank, ${tieOrder("c")}
      LIMIT ?`;
    return this.statements.get(sql).all(match, ...where.params, k) as RankedRow[];
  }
}
