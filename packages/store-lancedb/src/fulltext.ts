import type { SearchFilter, StoreHit } from "@engram/core/driver";
import { Index, MatchQuery, Operator, type Table } from "@lancedb/lancedb";
import { CHUNK_COLUMN, hitsOf, TERMS_COLUMN } from "./schema.js";
import { planFilter } from "./sql.js";
import type { ChunksShape } from "./vectors.js";

/**
 * Longest term the index keeps. LanceDB drops longer tokens silently (its default is 40
 * characters, which would lose long identifiers and hashes), so the limit is set far above any
 * real term.
 */
const MAX_TERM_LENGTH = 1 << 20;

/**
 * The full-text index over the chunks' analysed terms: split on whitespace only, with lower-casing,
 * stemming, stop words and ASCII folding all off, so LanceDB indexes exactly the terms core's
 * analyzer produced (Chinese unigrams and bigrams included). Positions are not stored: searches
 * are bags of terms, never phrases.
 */
export function fulltextIndex(): Index {
  return Index.fts({
    baseTokenizer: "whitespace",
    lowercase: false,
    stem: false,
    removeStopWords: false,
    asciiFolding: false,
    withPosition: false,
    maxTokenLength: MAX_TERM_LENGTH,
  });
}

/**
 * Rebuild the full-text index from every live row: the one sure way to make its statistics exact.
 * LanceDB's `optimize()` merges new rows into the index, but deleted rows keep counting in the
 * document count and document frequencies unless compaction happens to rewrite their fragment;
 * rows deleted as a whole fragment (a file's chunks from its previous re-index) kept counting
 * through repeated optimizes (`test/maintenance.test.ts`).
 */
export async function rebuildFulltextIndex(table: Table): Promise<void> {
  await table.createIndex(TERMS_COLUMN, { config: fulltextIndex(), replace: true });
}

/** Rows of the chunks table that no full-text index segment covers yet. */
export async function unindexedTextRows(table: Table): Promise<number> {
  const indices = await table.listIndices();
  const index = indices.find((i) => i.columns.includes(TERMS_COLUMN));
  return index?.numUnindexedRows ?? 0;
}

/**
 * The best `limit` chunks by BM25 (LanceDB's, k1 = 1.2, b = 0.75) over the analysed terms: a chunk
 * matches if it holds any of `terms` (unique, non-empty; operator OR). Filters are applied before
 * ranking, so a selective filter still yields `limit` hits (see `planFilter` for the usual one,
 * applied here instead). Best first; LanceDB keeps any part of a tie at the cut-off (defineStore
 * completes it).
 */
export async function searchText(
  table: Table,
  shape: ChunksShape,
  terms: readonly string[],
  limit: number,
  filter: SearchFilter | undefined,
): Promise<StoreHit[]> {
  const plan = await planFilter(filter, limit, async (where) =>
    (await shape.get(table)).outside(where),
  );
  if (!plan) return [];
  let query = table
    .query()
    .fullTextSearch(new MatchQuery(terms.join(" "), TERMS_COLUMN, { operator: Operator.Or }))
    .select([CHUNK_COLUMN, SCORE_COLUMN])
    .limit(limit + plan.extra);
  if (plan.where) query = query.where(plan.where);
  const hits = hitsOf(await query.toArrow(), SCORE_COLUMN, (score) => score ?? undefined);
  const { keep } = plan;
  return keep ? hits.filter((hit) => keep(hit.chunk)).slice(0, limit) : hits;
}

/** The column LanceDB gives a full-text hit's BM25 score in. */
const SCORE_COLUMN = "_score";
