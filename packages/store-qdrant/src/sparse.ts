import { termFrequencyWeight } from "@engram/core/driver";
import murmurhash from "murmurhash";
import type { Bm25Params } from "./options.js";

/** A Qdrant sparse vector: unique indices (ascending) and their weights. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/**
 * The sparse index of an analysed term: the MurmurHash3 (x86, 32-bit, seed 0) of its UTF-8 bytes
 * as an unsigned integer, from the `murmurhash` package — the hash Qdrant's own BM25 uses for
 * token ids (it keeps the absolute value of the signed result; this keeps all 32 bits). Stable
 * across platforms and releases, so a term maps to the same index in every process. Qdrant's sparse indices
 * are unsigned 32-bit, so distinct terms can share an index: with a vocabulary of V terms about
 * V² / 2³³ pairs collide (≈ 0.01 for 10,000 terms, ≈ 1 for 100,000, ≈ 116 for 1,000,000). Two
 * colliding terms behave as one: a query for either matches chunks holding the other, with the
 * IDF of the pair. Rare, and limited to those two terms.
 */
export function termIndex(term: string): number {
  return murmurhash.v3(term);
}

/**
 * A chunk's BM25 vector: for each distinct term (by index), the term-frequency part of BM25,
 * `tf·(k1+1) / (tf + k1·(1 − b + b·len/avgTerms))`, where `len` is the chunk's number of terms
 * (repeats counted) and `tf` the term's count times core's `termFrequencyWeight`, so a single Han
 * or kana character counts by presence, as in the SQLite store. Qdrant multiplies it by the term's IDF (`modifier: "idf"`) when a query hits
 * it, so `query · chunk` is the chunk's BM25 score. Null for a chunk without terms (it then has no
 * sparse vector and text search never finds it).
 */
export function documentVector(terms: readonly string[], params: Bm25Params): SparseVector | null {
  const counts = new Map<number, number>();
  let length = 0;
  for (const term of terms) {
    if (term.length === 0) continue;
    length++;
    const index = termIndex(term);
    counts.set(index, (counts.get(index) ?? 0) + termFrequencyWeight(term));
  }
  if (length === 0) return null;
  const { k1, b, avgTerms } = params;
  const norm = k1 * (1 - b + (b * length) / avgTerms);
  const indices = [...counts.keys()].sort((x, y) => x - y);
  const values = indices.map((index) => {
    const tf = counts.get(index) as number;
    return (tf * (k1 + 1)) / (tf + norm);
  });
  return { indices, values };
}

/**
 * A query's sparse vector: weight 1 for each distinct term, so repeating a query term changes
 * nothing and a chunk's score is the sum of IDF × term weight over the query terms it holds (any
 * of them, never all-required). Null when no term is left.
 */
export function queryVector(terms: readonly string[]): SparseVector | null {
  const indices = [
    ...new Set(terms.filter((term) => term.length > 0).map((term) => termIndex(term))),
  ].sort((x, y) => x - y);
  if (indices.length === 0) return null;
  return { indices, values: indices.map(() => 1) };
}
