export {
  compareCandidates,
  fuseRrf,
  fuseWeighted,
  keywordOnly,
  normalizeWeights,
  vectorOnly,
} from "./fusion.js";
export {
  type Reranked,
  type RerankOutcome,
  type RerankSettings,
  rerankCandidates,
} from "./rerank.js";
export { type SearcherParts, search } from "./searcher.js";
export { cutSnippet, type Snippet } from "./snippet.js";
export type * from "./types.js";
