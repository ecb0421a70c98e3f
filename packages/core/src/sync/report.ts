/** A file a sync could not index; what the index held for it before is kept. */
export interface SkippedFile {
  path: string;
  /** Error code, e.g. `INVALID_ENCODING`, `FILE_TOO_LARGE`, `EACCES`. */
  code: string;
  reason: string;
}

/** What one sync did. */
export interface SyncReport {
  /** True when the index was rebuilt from scratch (identity changed or `force`). */
  rebuilt: boolean;
  /** Why it was rebuilt. */
  rebuildReasons: string[];
  /** Files present in the workspace (scanned). */
  files: number;
  added: number;
  updated: number;
  /** Files whose stats changed but content did not (metadata refreshed, nothing re-chunked). */
  touched: number;
  unchanged: number;
  removed: number;
  skipped: SkippedFile[];
  /** Chunks written. */
  chunks: number;
  /** Embedding work: vectors served from the cache and vectors computed. */
  embedding: { cacheHits: number; embedded: number; requests: number; tokens: number };
  warnings: string[];
  durationMs: number;
  /** When the sync finished (ISO 8601). */
  finishedAt: string;
}

/** Progress of a running sync, for progress bars. */
export interface SyncProgress {
  phase: "scan" | "index" | "done";
  /** Files processed so far in the index phase. */
  done: number;
  /** Files to process in the index phase. */
  total: number;
  /** The file just processed. */
  path?: string;
}

/** Meta key under which the last sync's report is kept, for `engram status`. */
export const LAST_SYNC_META_KEY = "engram.lastSync";
