export {
  type EmbedInput,
  type EmbedStats,
  embeddingCacheKey,
  embedTexts,
} from "./embed-texts.js";
export type { Embedder } from "./embedder.js";
export {
  describeEmbedding,
  type EmbeddingIdentity,
  embeddingIdentity,
  IDENTITY_META_KEY,
  INDEX_FORMAT,
  type IndexIdentity,
  identityChanges,
  indexIdentity,
  parseIdentity,
  serializeIdentity,
} from "./identity.js";
