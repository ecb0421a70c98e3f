import type { Tier } from "../tier.js";

/** Where a file came from. `memory` is the workspace's Markdown; drivers must accept any string. */
export type Source = "memory" | "sessions" | (string & {});

/** What the index knows about one source file. `path` is the key. */
export interface FileRecord {
  /** Workspace-relative POSIX path (`memory/2026-01-02.md`), or an absolute path for `extraPaths` outside it. */
  path: string;
  source: Source;
  tier: Tier;
  /** sha256 (hex) of the file's bytes. */
  hash: string;
  /** Modification time in whole milliseconds. */
  mtimeMs: number;
  /** Size in bytes. */
  size: number;
}

/** A chunk as written to a store. */
export interface ChunkRecord {
  /** Stable id: the same path, line range and text always give the same id. */
  id: string;
  path: string;
  source: Source;
  tier: Tier;
  /** 1-based first line of the chunk in its file. */
  startLine: number;
  /** 1-based last line (inclusive). */
  endLine: number;
  /** Heading path in effect at the chunk's first line, outermost first. */
  headings: string[];
  /** The chunk's exact text (the file's lines `startLine..endLine`). */
  text: string;
  /** sha256 (hex) of `text`. */
  hash: string;
  /**
   * Analysed full-text terms (see `text/analyzer`), in order, repeats kept. Stores index these as
   * they are — never re-tokenise — so every driver ranks Chinese and English the same way.
   */
  terms: string[];
  /** The chunk's embedding, or null when the index has no vectors or it is not embedded yet. */
  embedding: Float32Array | null;
}

/** A chunk as read back from a store: everything but the terms and the vector. */
export type StoredChunk = Omit<ChunkRecord, "terms" | "embedding">;

/** Restricts a search to some tiers, sources or a path prefix. Absent fields do not restrict. */
export interface SearchFilter {
  tiers?: readonly Tier[];
  sources?: readonly Source[];
  /** Keep only chunks whose path starts with this string (e.g. `memory/mid-term/`). */
  pathPrefix?: string;
}

/** One hit from a store's search. Hits come best first. */
export interface StoreHit {
  chunk: StoredChunk;
  /**
   * Higher is better. For `searchText`: the BM25 score (positive). For `searchVector`: cosine
   * similarity in [-1, 1].
   */
  score: number;
}

/** One change to apply to a store. See {@link MemoryStore.write}. */
export interface StoreBatch {
  /** Files to (re)index: each replaces every chunk the store holds for that path. */
  upserts?: Array<{ file: FileRecord; chunks: ChunkRecord[] }>;
  /** Paths to remove, with all their chunks. Unknown paths are ignored. */
  deletes?: string[];
  /** File records whose metadata changed (mtime) but whose content did not; chunks stay. */
  touches?: FileRecord[];
}

/** Counts a store reports for `engram status`. */
export interface StoreStats {
  files: number;
  chunks: number;
  /** Chunks that carry an embedding. */
  vectors: number;
  /** Bytes on disk, when the store knows. */
  bytes?: number;
}
