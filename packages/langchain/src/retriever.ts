import type { Memory, SearchOptions } from "@engram/core";
import type { CallbackManagerForRetrieverRun } from "@langchain/core/callbacks/manager";
import { Document } from "@langchain/core/documents";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";

/** Fields of {@link EngramRetriever}. */
export interface EngramRetrieverInput extends BaseRetrieverInput {
  /** The workspace's memory (only `search` is used). */
  memory: Pick<Memory, "search">;
  /** Options of every search (`maxResults`, `tiers`, `scope`, `mode`, …). */
  searchOptions?: Omit<SearchOptions, "signal">;
}

/**
 * A LangChain retriever over engram's hybrid search: each result is a `Document` whose
 * `pageContent` is the snippet and whose metadata cites it (`path`, `startLine`, `endLine`,
 * `score`, `tier`, `source`, `degraded`), with id `path:start-end`. Use it in retrieval chains,
 * or as a tool through `retriever.asTool()`. `searchOptions.scope: "group"` keeps personal files
 * and private blocks out, as for `Memory.search`.
 *
 * @example
 * ```ts
 * const retriever = new EngramRetriever({ memory, searchOptions: { maxResults: 4 } });
 * const docs = await retriever.invoke("rollback plan");
 * ```
 */
export class EngramRetriever extends BaseRetriever {
  static override lc_name(): string {
    return "EngramRetriever";
  }

  lc_namespace = ["engram", "retrievers"];

  readonly memory: Pick<Memory, "search">;
  readonly searchOptions: Omit<SearchOptions, "signal">;

  constructor(fields: EngramRetrieverInput) {
    super(fields);
    this.memory = fields.memory;
    this.searchOptions = fields.searchOptions ?? {};
  }

  override async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun,
  ): Promise<Document[]> {
    const response = await this.memory.search(query, this.searchOptions);
    return response.results.map(
      (r) =>
        new Document({
          id: `${r.path}:${r.startLine}-${r.endLine}`,
          pageContent: r.snippet,
          metadata: {
            path: r.path,
            startLine: r.startLine,
            endLine: r.endLine,
            score: r.score,
            tier: r.tier,
            source: r.source,
            degraded: r.degraded,
            ...(r.provider ? { provider: r.provider, model: r.model } : {}),
          },
        }),
    );
  }
}
