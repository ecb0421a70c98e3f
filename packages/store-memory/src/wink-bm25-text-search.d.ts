/**
 * The part of `wink-bm25-text-search` 3.1.2 (CommonJS, no bundled types) this package uses; see
 * `node_modules/wink-bm25-text-search/src/wink-bm25-text-search.js`.
 */
declare module "wink-bm25-text-search" {
  namespace bm25 {
    /** A prep task: turns a field value (or the query) into the next stage, finally a token array. */
    type PrepTask = (input: never) => unknown;

    /** `defineConfig` input. */
    interface Config {
      /** Weight per indexed field; a document must have every field named here. */
      fldWeights: Record<string, number>;
      /** BM25 parameters: `k1` saturation, `b` length normalisation, `k` the IDF's additive constant. */
      bm25Params?: { k1?: number; b?: number; k?: number };
      /** Fields whose original values are retained and handed to the search filter. */
      ovFldNames?: string[];
    }

    /** One BM25F engine. Documents can be added only before `consolidate()`, which runs once. */
    interface Engine {
      defineConfig(config: Config): true;
      /** Default tasks (no field; also used for the query) or those of one configured field. */
      definePrepTasks(tasks: PrepTask[], field?: string): number;
      /** Adds a document; throws after consolidation or for a duplicate id. Returns the doc count. */
      addDoc(doc: Record<string, unknown>, id: string | number): number;
      /** Computes IDFs and pre-multiplies term weights, rounded to `precision` (4–9) decimals. Needs ≥ 3 docs. */
      consolidate(precision?: number): true;
      /**
       * `[id, score]` pairs, best first, at most `limit` (default 10). `text` must be a string; it
       * goes through the default prep tasks. `filter` sees the retained field values.
       */
      search<P = unknown>(
        text: string,
        limit?: number,
        filter?: (fieldValues: Record<string, unknown>, params: P) => boolean,
        params?: P,
      ): Array<[id: string, score: number]>;
      getTotalDocs(): number;
    }
  }

  /** A new, empty engine. */
  function bm25(): bm25.Engine;
  export = bm25;
}
