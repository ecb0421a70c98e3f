export { chunkRecords } from "./chunk-records.js";
export type { IndexContext } from "./context.js";
export { estimateSync, type SyncEstimate } from "./estimate.js";
export { runSync, type SyncOptions } from "./indexer.js";
export { planSync, type SyncPlan } from "./plan.js";
export {
  LAST_SYNC_META_KEY,
  PENDING_VECTORS_META_KEY,
  type SkippedFile,
  type SyncEmbeddingReport,
  type SyncProgress,
  type SyncReport,
} from "./report.js";
export { type Watcher, type WatchOptions, watchWorkspace } from "./watcher.js";
