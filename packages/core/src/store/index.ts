export {
  assertChunksFit,
  assertQueryDims,
  assertUniqueChunkIds,
  checkStoreOptions,
  resultLimit,
} from "./checks.js";
export {
  type ChunkPredicate,
  compileFilter,
  compileLabelFilter,
  type Filterable,
  type LabelPredicate,
} from "./filter-predicate.js";
export { type ChunkLocation, compareChunkOrder } from "./order.js";
export type * from "./records.js";
export {
  describeRecovery,
  parseRecoveries,
  RECOVERY_META_KEY,
  type StoreRecovery,
  takeRecoveries,
} from "./recovery.js";
export { storeClosedError, storeNotInitialisedError } from "./state-errors.js";
export type * from "./store.js";
export { completeTopK } from "./top-k.js";
