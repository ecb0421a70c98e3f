export {
  compareCandidates,
  fuseRrf,
  fuseWeighted,
  keywordOnly,
  normalizeWeights,
  vectorOnly,
} from "./fusion.js";
export {
  applyRelevance,
  type RelevanceSignals,
  type RelevanceWeights,
  relevanceScore,
} from "./relevance.js";
export { relevanceSignals } from "./relevance-signals.js";
export { type SearcherParts, search } from "./searcher.js";
export { cutSnippet, type Snippet } from "./snippet.js";
export type * from "./types.js";
