import { compileFilter, type Filterable, isCharacterTerm, type SearchFilter } from "@engram/core";
import winkBm25 from "wink-bm25-text-search";
import { BM25_PARAMS, scoreDirectly, WEIGHT_PRECISION } from "./bm25.js";
import { CharacterPostings } from "./character-postings.js";
import type { ChunkEntry } from "./chunk-entry.js";
import type { ChunkIndex } from "./chunk-index.js";
import { type Scored, TopK } from "./top-k.js";

/** wink refuses to consolidate fewer documents than this. */
export const MIN_WINK_DOCS = 3;

/** Retained per wink document and handed to the search filter. */
const FILTER_FIELDS = ["path", "tier", "source"];

/** Documents are indexed by their analysed terms exactly as core produced them. */
const indexAsGiven = (terms: readonly string[]) => terms;
/** wink's `search` takes only a string: the query is the JSON of its unique terms. */
const decodeQuery = (query: string): string[] => JSON.parse(query);

/**
 * BM25 over the chunks' analysed terms through wink-bm25-text-search.
 *
 * wink adds documents only before `consolidate()`, which runs once and needs at least 3
 * documents. So any change only marks the wink index stale, and the first search after it
 * rebuilds the whole index from the held terms (every chunk with terms is one wink document).
 * With fewer than 3 such chunks, the same BM25 is computed directly ({@link scoreDirectly}).
 * wink orders equal scores arbitrarily and would cut the list there, so it is asked for every
 * match and {@link TopK} picks the best `k` in the contract's tie order. Single Han and kana
 * characters are scored by {@link CharacterPostings} (they count by presence), built alongside.
 */
export class TextIndex implements ChunkIndex {
  readonly #docs = new Map<number, ChunkEntry>();
  #engine: { wink: winkBm25.Engine; characters: CharacterPostings } | undefined;
  #builds = 0;

  add(entry: ChunkEntry): void {
    if (entry.terms.length === 0) return;
    this.#docs.set(entry.seq, entry);
    this.#engine = undefined;
  }

  remove(entry: ChunkEntry): void {
    if (this.#docs.delete(entry.seq)) this.#engine = undefined;
  }

  clear(): void {
    this.#docs.clear();
    this.#engine = undefined;
  }

  /** Chunks indexed (those with at least one term). */
  get size(): number {
    return this.#docs.size;
  }

  /** How many times the wink index has been built (each costs a pass over every term). */
  get builds(): number {
    return this.#builds;
  }

  /** Up to `limit` chunks holding any of `terms`, best first, ties by path then start line. */
  search(terms: readonly string[], limit: number, filter?: SearchFilter): Scored[] {
    const unique = [...new Set(terms)].filter((term) => term.length > 0);
    if (unique.length === 0 || limit < 1 || this.#docs.size === 0) return [];
    const accept = compileFilter(filter);
    const top = new TopK(limit);
    if (this.#docs.size < MIN_WINK_DOCS) {
      scoreDirectly(
        [...this.#docs.values()],
        unique,
        (entry, score) => top.offer(entry, score),
        accept && ((entry) => accept(entry.chunk)),
      );
      return top.results();
    }
    const engine = this.#engine ?? this.#build();
    const scores = new Map<number, { entry: ChunkEntry; score: number }>();
    const words = unique.filter((term) => !isCharacterTerm(term));
    if (words.length) {
      const matches = engine.wink.search(
        JSON.stringify(words),
        this.#docs.size,
        accept && ((fields) => accept(fields as unknown as Filterable)),
      );
      for (const [id, score] of matches) {
        const entry = this.#docs.get(Number(id));
        if (entry) scores.set(entry.seq, { entry, score });
      }
    }
    engine.characters.addScores(unique, scores, accept && ((entry) => accept(entry.chunk)));
    for (const { entry, score } of scores.values()) top.offer(entry, score);
    return top.results();
  }

  #build(): { wink: winkBm25.Engine; characters: CharacterPostings } {
    const engine = winkBm25();
    engine.defineConfig({
      fldWeights: { terms: 1 },
      bm25Params: { ...BM25_PARAMS },
      ovFldNames: [...FILTER_FIELDS],
    });
    engine.definePrepTasks([indexAsGiven], "terms");
    engine.definePrepTasks([decodeQuery]);
    for (const { seq, terms, chunk } of this.#docs.values()) {
      engine.addDoc({ terms, path: chunk.path, tier: chunk.tier, source: chunk.source }, seq);
    }
    engine.consolidate(WEIGHT_PRECISION);
    this.#engine = { wink: engine, characters: new CharacterPostings(this.#docs) };
    this.#builds++;
    return this.#engine;
  }
}
