export { type ChunkingConfig, chunkRecords, isLogFile } from "./chunk-records.js";
export type { IndexContext } from "./context.js";
export { estimateSync, type SyncEstimate } from "./estimate.js";
export {
  readHeartbeat,
  WATCH_HEARTBEAT_FILE,
  type WatcherHealth,
  type WatchHeartbeat,
  watcherHealth,
} from "./heartbeat.js";
export { runSync, type SyncOptions } from "./indexer.js";
export { type PlannedFile, planSync, type SyncPlan } from "./plan.js";
export {
  LAST_SYNC_META_KEY,
  PENDING_VECTORS_META_KEY,
  type SkippedFile,
  type SyncEmbeddingReport,
  type SyncProgress,
  type SyncReport,
} from "./report.js";
export { type ScopedChunks, scopedChunkRecords } from "./scoped-chunks.js";
export type { MemoryWatchOptions } from "./watch-session.js";
export { type Watcher, type WatchOptions, type WatchTarget, watchWorkspace } from "./watcher.js";
