import type { Source, StoredChunk } from "../driver/records.js";
import type { SealedSearchInfo } from "../sealing/session.js";
import type { Tier } from "../tier.js";
import type { RerankOutcome } from "./rerank.js";

/** How a query is answered. */
export type SearchMode = "hybrid" | "keyword" | "vector";
/** How keyword and vector rankings are combined in hybrid mode. */
export type FusionMethod = "weighted" | "rrf";

/** Per-query options; unset fields come from the config's `search` section. */
export interface SearchOptions {
  /** Most results (default 6). */
  maxResults?: number;
  /** Drop results scoring below this; see `search.minScore` in the config for the default rule. */
  minScore?: number;
  /** `hybrid` (default), `keyword` (BM25 only) or `vector` (embeddings only). */
  mode?: SearchMode;
  fusion?: FusionMethod;
  /** Tiers to search (default: short, mid, long — the archive only on request). */
  tiers?: readonly Tier[];
  sources?: readonly Source[];
  /** Only chunks whose path starts with this (e.g. `memory/mid-term/`). */
  pathPrefix?: string;
  /**
   * `main` (default): everything. `group`: leaves out every `MEMORY.md` and the other personal
   * files, files with `sensitive: true` front matter, private spans (a chunk holding one is seen
   * through its public view, the span replaced by `[private]`) and transcripts. The store filters
   * by scope (see `privacy/scope-sources`); `Memory.search` also checks group results against the
   * files on disk.
   */
  scope?: "main" | "group";
  /** "Now" for temporal decay (default: the current time); replays and tests fix it. */
  now?: Date;
  /**
   * Blend the seed's relevance formula (recency, recall frequency, importance) into the ranking
   * with this weight (0–1; default `search.relevance.weight` when `search.relevance.enabled`,
   * else 0). Applied by `Memory.search`.
   */
  relevance?: number;
  /**
   * Rerank the fused candidates with the configured reranker (default: `search.rerank.enabled`
   * when a reranker is configured). `true` without a configured reranker is an error.
   */
  rerank?: boolean;
  /**
   * Count the results in the recall log (default true), which promotion candidates and
   * consolidation's recall guard read. False for a search no one asked for, such as a warm-up.
   */
  recordRecall?: boolean;
  signal?: AbortSignal;
}

/** One search result: a snippet of a file with the exact lines it shows. */
export interface SearchResult {
  /** Workspace-relative path (absolute for extra paths outside the workspace). */
  path: string;
  /** 1-based first line the snippet shows. */
  startLine: number;
  /** 1-based last line the snippet shows (inclusive). */
  endLine: number;
  /** The lines `startLine..endLine`, at most `snippetChars` (700) characters. */
  snippet: string;
  /** Fused score in [0, 1], higher is better. */
  score: number;
  tier: Tier;
  source: Source;
  /** Heading path of the chunk the snippet comes from. */
  headings: string[];
  /**
   * Component scores: `vector` is cosine similarity, `text` the BM25 score, `rerank` the
   * reranker's own score (when the results are in its order).
   */
  scores: { vector?: number; text?: number; rerank?: number };
  /** Embedding provider and model that answered the vector side, when it ran. */
  provider?: string;
  model?: string;
  /** True when the provider that answered is a fallback, not the configured primary. */
  fallback?: boolean;
  /** True when the vector side was skipped and keyword search answered alone. */
  degraded: boolean;
  /**
   * True when this file's vectors are still owed (the provider failed or the token budget ran out
   * when it was indexed): it was scored on its keywords alone, on the same 0–1 scale.
   */
  vectorOwed?: boolean;
}

/** The answer to a query. */
export interface SearchResponse {
  query: string;
  /** The mode that actually ran (hybrid degrades to keyword when vectors are unavailable). */
  mode: SearchMode;
  results: SearchResult[];
  /** True when hybrid search was asked for but keyword search answered alone. */
  degraded: boolean;
  /** Why the search degraded, in words. */
  degradedReason?: string;
  /**
   * Files indexed for keyword search whose vectors are still owed (the next sync embeds them).
   * Their chunks are found by their keywords meanwhile. Absent when none are owed.
   */
  vectorsOwed?: number;
  /** The rerank stage, when it ran: whether its order was used, or why it was skipped. */
  rerank?: RerankOutcome;
  /**
   * Sealed files (main scope, when the workspace has any): how many were searched with the key,
   * and how many were skipped (no key, or another key) — search says so rather than staying silent.
   */
  sealed?: SealedSearchInfo;
}

/** A fused candidate before snippets are cut. */
export interface Candidate {
  chunk: StoredChunk;
  score: number;
  scores: { vector?: number; text?: number; rerank?: number };
  /** True when the chunk has no vector yet (owed): only its keywords could vote. */
  owed?: boolean;
}
