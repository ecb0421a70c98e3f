/**
 * The rerank contract: scores how well each candidate answers a query, so search can reorder its
 * fused candidates before MMR. Drivers: the HTTP `/v1/rerank` shape (Cohere, Jina, Voyage, vLLM,
 * Infinity, TEI, llama.cpp's server), node-llama-cpp's ranking context over a GGUF reranker, or a
 * {@link LanguageModel}. Search runs it fail-open under a deadline: a reranker that fails or is too
 * slow leaves the fused order as it was, and the response says so.
 *
 * Like embedders, rerankers make one attempt per call and throw classified provider errors.
 */
export interface Reranker {
  /** Provider id, e.g. `http`, `local`, `llm`. */
  readonly id: string;
  /** Model name. */
  readonly model: string;
  /** Where the model runs (base URL, model file path); never includes secrets. */
  readonly endpoint?: string;
  /** Most documents per call (search sends at most this many candidates). */
  readonly maxDocuments?: number;

  /**
   * Relevance of each document to `query`, one score per document in the order given (higher is
   * more relevant; scale is the model's own — search uses only the order and the relative gaps).
   */
  rerank(
    query: string,
    documents: readonly string[],
    options?: { signal?: AbortSignal },
  ): Promise<number[]>;
  /** Release resources. Optional. */
  close?(): Promise<void>;
}
