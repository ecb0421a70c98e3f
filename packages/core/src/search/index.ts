export { dateOfPath, decayFactor } from "./decay.js";
export {
  compareCandidates,
  fuseRrf,
  fuseWeighted,
  keywordOnly,
  normalizeWeights,
  vectorOnly,
} from "./fusion.js";
export { type SearcherParts, search } from "./searcher.js";
export { cutSnippet, type Snippet } from "./snippet.js";
export type * from "./types.js";
