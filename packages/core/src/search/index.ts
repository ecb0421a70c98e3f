export { dateOfPath, decayFactor } from "./decay.js";
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
export {
  type Reranked,
  type RerankOutcome,
  type RerankSettings,
  rerankCandidates,
} from "./rerank.js";
export type { RerankStatus } from "./rerank-slot.js";
export { RERANK_STATS_META_KEY, type RerankStats } from "./rerank-stats.js";
export { type SearcherParts, search } from "./searcher.js";
export { cutSnippet, type Snippet } from "./snippet.js";
export type * from "./types.js";
export { type WarmUpReport, type WarmUpTarget, warmUp } from "./warm-up.js";
