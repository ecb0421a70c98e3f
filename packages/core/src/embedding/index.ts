export type { Embedder } from "./embedder.js";
export {
  IDENTITY_META_KEY,
  INDEX_FORMAT,
  type IndexIdentity,
  identityChanges,
  indexIdentity,
  parseIdentity,
  serializeIdentity,
} from "./identity.js";
