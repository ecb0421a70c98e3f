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
  /**
   * Session transcripts that grew since they were indexed, but by less than `sessions.deltaBytes`
   * and `sessions.deltaMessages`: searchable as indexed until they grow past it (or `force`).
   */
  deferred?: number;
  skipped: SkippedFile[];
  /** Chunks written. */
  chunks: number;
  /**
   * Sealed files the index holds after this sync (counted, searched only with the key). A search
   * in a new process reads it here instead of listing the index's files: 0 means none to open.
   * Absent in reports of earlier versions.
   */
  sealedFiles?: number;
  /** Embedding work: vectors served from the cache and vectors computed. */
  embedding: SyncEmbeddingReport;
  warnings: string[];
  /**
   * The index was found damaged and rebuilt from the files (also among `warnings`): said by the
   * first sync after it happened, once, so commands that sync quietly (`search`) can tell it too.
   */
  recovered?: string[];
  durationMs: number;
  /** When the sync finished (ISO 8601). */
  finishedAt: string;
  /**
   * Present when the index's vectors are being switched to another provider or model: the new
   * vectors are embedded into the cache first (`staged` of `total` chunks) while search keeps the
   * old ones; `switched` once all were there and the index took them.
   */
  vectorSwitch?: {
    from: string;
    to: string;
    staged: number;
    total: number;
    switched: boolean;
    /** True when the keyword index stayed up during the switch (the store has `resetVectors`). */
    keptKeywordIndex?: boolean;
  };
}

/** What embedding cost during a sync, and what is left. */
export interface SyncEmbeddingReport {
  /** `provider/model/dims[@endpoint]` the index holds, or `none`. */
  provider: string;
  /** True when a fallback provider did the work because the primary could not. */
  fallbackUsed: boolean;
  cacheHits: number;
  embedded: number;
  /** Requests the provider received: every attempt, retries and failed ones included. */
  requests: number;
  /** Of those, retries after a retryable failure. */
  retries?: number;
  /** Calls that failed for good (after their retries). */
  failures?: number;
  /** Estimated tokens sent. */
  tokens: number;
  /** Files indexed for keyword search whose vectors are still owed (embedded by the next sync). */
  pendingFiles: number;
  /** Why embedding stopped early: a provider failure or the token budget. */
  stopped?: { code: string; message: string };
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

/** Meta key holding the embedding cache's lifetime lookups: `{ hits, misses }`. */
export const CACHE_STATS_META_KEY = "engram.cacheStats";

/**
 * Meta key holding the `cache.maxEntries` the embedding cache was last kept within. Its writes
 * never take it past the limit it was opened with, so only a lower limit since then needs it counted.
 */
export const CACHE_LIMIT_META_KEY = "engram.cacheLimit";

/** Meta key holding the paths whose chunks still wait for vectors (JSON array). */
export const PENDING_VECTORS_META_KEY = "engram.vectorsPending";

/** @internal The pending-vector paths stored under {@link PENDING_VECTORS_META_KEY}. */
export function parsePendingPaths(json: string | undefined): string[] {
  try {
    const value = json ? JSON.parse(json) : [];
    return Array.isArray(value) ? value.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
}

/** @internal The lifetime cache lookups stored under {@link CACHE_STATS_META_KEY}. */
export function parseCacheStats(json: string | undefined): { hits: number; misses: number } {
  try {
    const value = json ? JSON.parse(json) : {};
    return { hits: Number(value.hits) || 0, misses: Number(value.misses) || 0 };
  } catch {
    return { hits: 0, misses: 0 };
  }
}
