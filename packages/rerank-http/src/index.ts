/**
 * @engram/rerank-http — an engram reranker for the `/v1/rerank` shape that Cohere, Jina, Voyage,
 * vLLM, Infinity, TEI and llama.cpp's server share.
 * @packageDocumentation
 */
export { httpReranker, scoresFrom } from "./http-reranker.js";
export { httpRerankerProvider } from "./provider.js";
export {
  type HttpRerankerOptions,
  httpRerankSettings,
  PROVIDER_ID,
  type RerankApi,
} from "./settings.js";
