import type { EngramConfig } from "../config/schema.js";
import { DEFAULT_MIN_SCORE } from "../config/schema.js";
import type { MemoryStore } from "../driver/contract.js";
import type { SearchFilter, StoredChunk, StoreHit } from "../driver/records.js";
import type { Embedder } from "../embedding/embedder.js";
import {
  describeEmbedding,
  type EmbeddingIdentity,
  embeddingIdentity,
  IDENTITY_META_KEY,
  parseIdentity,
} from "../embedding/identity.js";
import { EngramError } from "../errors.js";
import type { Reranker } from "../model/reranker.js";
import { publicSource, scopeSources } from "../privacy/scope-sources.js";
import { type Analyzer, queryTermsOf } from "../text/analyzer.js";
import { applyTemporalDecay } from "./decay.js";
import {
  compareCandidates,
  fuseRrf,
  fuseWeighted,
  keywordOnly,
  normalizeWeights,
  queryWeights,
  vectorOnly,
} from "./fusion.js";
import { mmrByTerms } from "./mmr.js";
import { applyRelevance, type RelevanceSignals, type RelevanceWeights } from "./relevance.js";
import { type RerankOutcome, rerankCandidates } from "./rerank.js";
import { cutSnippet } from "./snippet.js";
import { lineTermWeights } from "./term-weights.js";
import { applyTierWeights } from "./tier-weight.js";
import type {
  Candidate,
  SearchMode,
  SearchOptions,
  SearchResponse,
  SearchResult,
} from "./types.js";

/** What a searcher needs: the store, the analyzer the index was built with, and maybe an embedder. */
export interface SearcherParts {
  store: MemoryStore;
  analyzer: Analyzer;
  /** null: keyword search only (hybrid queries answer `degraded`). */
  embedder: Embedder | null;
  /** True when `embedder` is a fallback provider (reported on results). */
  fallback?: boolean;
  /**
   * The embedding identity the index was built with, when the caller has already read it from the
   * store (null: keyword-only index). Absent: the searcher reads it.
   */
  indexed?: EmbeddingIdentity | null;
  /**
   * Paths whose vectors are owed (indexed for keywords while the provider could not embed them):
   * their chunks are scored on their keywords alone rather than counted as dissimilar.
   */
  owed?: ReadonlySet<string>;
  /** Why there is no vector side, when the caller knows better than "no provider configured". */
  noVectorsReason?: string;
  /** Relevance signals of a chunk (the seed's formula), when search blends relevance in. */
  relevance?: {
    signalsOf: (chunk: StoredChunk) => RelevanceSignals;
    weight: number;
    weights: RelevanceWeights;
  };
  /**
   * The configured reranker (null: none), or a function that gives it on first use (a reranker is
   * created only when a search asks for one).
   */
  reranker?: Reranker | null | (() => Promise<Reranker | null>);
  /**
   * What the reranker may read of each candidate (private spans redacted, sensitive files
   * withheld: `modelView`); absent: the chunk text.
   */
  rerankView?: (chunks: readonly StoredChunk[]) => Promise<string[]>;
  config: EngramConfig["search"];
}

/**
 * Hybrid search over a store: candidate pools of `maxResults × candidateMultiplier` from BM25
 * and from vectors, fused by weights or RRF, filtered by `minScore`, cut into snippets.
 */
export async function search(
  parts: SearcherParts,
  query: string,
  options: SearchOptions = {},
): Promise<SearchResponse> {
  const { store, analyzer, embedder, config } = parts;
  const maxResults = options.maxResults ?? config.maxResults;
  if (!Number.isInteger(maxResults) || maxResults < 1) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `maxResults must be a positive integer, got ${maxResults}`,
      {
        hint: "pass a number such as 6",
      },
    );
  }
  const requested: SearchMode = options.mode ?? "hybrid";
  const terms = [...new Set(queryTermsOf(analyzer, query))];
  const scope = options.scope ?? "main";
  const filter: SearchFilter = {
    tiers: options.tiers ?? config.tiers,
    // The store filters by scope, so what a scope may not see is never even a candidate.
    sources: scopeSources(scope, options.sources),
    ...(options.pathPrefix ? { pathPrefix: options.pathPrefix } : {}),
  };
  const pool = maxResults * config.candidateMultiplier;

  // A keyword search has no vector side to explain (nor a store read to spend on it).
  const vectorUnavailable =
    requested === "keyword"
      ? undefined
      : !embedder && parts.noVectorsReason
        ? parts.noVectorsReason
        : await whyNoVectors(store, embedder, parts.indexed);
  if (requested === "vector" && vectorUnavailable) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `vector search is unavailable: ${vectorUnavailable}`,
      {
        hint: "configure an embedding provider and run engram sync, or search with --mode keyword",
      },
    );
  }

  // The query embedding (a provider round trip) and the vector search run while the keyword
  // search does, so hybrid latency is the slower of the two sides rather than their sum.
  const vectorSide =
    requested !== "keyword" && !vectorUnavailable && embedder && query.trim() !== ""
      ? settle(() =>
          embedder
            .embedQuery(query, options.signal)
            .then((vector) => store.searchVector(vector, pool, filter)),
        )
      : undefined;

  const textHits =
    requested !== "vector" && store.capabilities.fulltext
      ? await store.searchText(terms, pool, filter)
      : [];

  let degradedReason: string | undefined;
  let vectorHits: StoreHit[] = [];
  const vectorOutcome = await vectorSide;
  if (vectorOutcome && "error" in vectorOutcome) {
    if (requested === "vector") throw vectorOutcome.error;
    degradedReason = `embedding the query failed: ${(vectorOutcome.error as Error).message}`;
  } else if (vectorOutcome) {
    vectorHits = vectorOutcome.value;
  } else if (requested === "hybrid" && vectorUnavailable) {
    degradedReason = vectorUnavailable;
  }

  const mode: SearchMode =
    requested === "hybrid" && degradedReason !== undefined ? "keyword" : requested;
  const weights = queryWeights(
    normalizeWeights(config.vectorWeight, config.textWeight),
    config.weighting,
    vectorHits,
    textHits,
  );
  const fusion = options.fusion ?? config.fusion;
  const owedPaths = parts.owed;
  const owed = owedPaths?.size ? (hit: StoreHit) => owedPaths.has(hit.chunk.path) : undefined;
  let candidates: Candidate[];
  if (mode === "keyword") candidates = keywordOnly(textHits);
  else if (mode === "vector") candidates = vectorOnly(vectorHits);
  else if (fusion === "rrf") candidates = fuseRrf(vectorHits, textHits, weights, config.rrfK, owed);
  else candidates = fuseWeighted(vectorHits, textHits, weights, owed);

  // An explicit minScore applies to every score. The default one is a threshold on similarity:
  // in vector mode on the score (a cosine), in hybrid mode on the cosine of chunks that only the
  // vectors found (fused scores are relative to each query's lists, and a keyword match is
  // evidence of its own); never on a chunk whose vector is owed.
  const explicitMin = options.minScore ?? config.minScore;
  const keep =
    explicitMin !== undefined
      ? (c: Candidate) => c.score >= explicitMin
      : mode === "vector"
        ? (c: Candidate) => c.score >= DEFAULT_MIN_SCORE
        : mode === "hybrid"
          ? (c: Candidate) =>
              c.scores.text !== undefined || c.owed || (c.scores.vector ?? 0) >= DEFAULT_MIN_SCORE
          : () => true;
  // Tier weights after the min score (a threshold on similarity), before ranking.
  const kept = applyTierWeights(candidates.filter(keep), config.tierWeights).sort(
    compareCandidates,
  );

  const queryTerms = new Set(terms);
  const termsOf = (text: string) => analyzer.terms(text);
  // Temporal decay and MMR re-rank what the min score kept; neither drops a relevant result.
  const decay = config.temporalDecay;
  const ranked = decay.enabled
    ? applyTemporalDecay(kept, options.now ?? new Date(), decay.halfLifeDays).sort(
        compareCandidates,
      )
    : kept;
  // The reranker reorders the best fused candidates (fail-open) before MMR diversifies them.
  let rerank: RerankOutcome | undefined;
  let reordered = ranked;
  const wantRerank = options.rerank ?? config.rerank.enabled;
  if (wantRerank && query.trim() !== "") {
    const reranker =
      typeof parts.reranker === "function" ? await parts.reranker() : (parts.reranker ?? null);
    if (reranker) {
      const result = await rerankCandidates(
        query,
        ranked,
        reranker,
        {
          candidates: config.rerank.candidates,
          timeoutMs: config.rerank.timeoutMs,
          maxResults,
          ...(parts.rerankView ? { view: parts.rerankView } : {}),
        },
        options.signal,
      );
      reordered = result.candidates;
      rerank = result.outcome;
    } else if (options.rerank === true) {
      throw new EngramError("INVALID_ARGUMENT", "no reranker is configured", {
        hint: 'set search.rerank.provider ("http" or "local") and its settings in engram.config.json',
      });
    }
  }
  // The seed's relevance formula, when asked, after the reranker and before MMR.
  const relevant = parts.relevance
    ? applyRelevance(
        reordered,
        parts.relevance.signalsOf,
        parts.relevance.weight,
        parts.relevance.weights,
      ).sort(compareCandidates)
    : reordered;
  const chosen = config.mmr.enabled
    ? mmrByTerms(relevant, maxResults, config.mmr.lambda, termsOf)
    : relevant.slice(0, maxResults);
  // Snippets only ask which query terms each line holds (twice per line of a long chunk).
  const lineTerms = memoised(analyzer.termsAmong?.(queryTerms) ?? termsOf);
  // Only a chunk longer than a snippet is cut, by these weights: none, no weights to compute.
  let lineWeights: Map<string, number> | undefined;
  const weightsFor = (text: string) => {
    if (text.length <= config.snippetChars) return undefined;
    lineWeights ??= lineTermWeights(
      chosen.map((c) => c.chunk.text),
      queryTerms,
      lineTerms,
    );
    return lineWeights;
  };
  const degraded = degradedReason !== undefined;
  const results: SearchResult[] = chosen.map((c) => {
    const snippet = cutSnippet(
      c.chunk,
      queryTerms,
      lineTerms,
      config.snippetChars,
      weightsFor(c.chunk.text),
    );
    return {
      path: c.chunk.path,
      startLine: snippet.startLine,
      endLine: snippet.endLine,
      snippet: snippet.text,
      score: round(c.score),
      tier: c.chunk.tier,
      source: publicSource(c.chunk.source),
      headings: c.chunk.headings,
      scores: {
        ...(c.scores.vector !== undefined ? { vector: round(c.scores.vector) } : {}),
        // The raw BM25 value weighs terms by statistics of the whole index, private chunks
        // included: a group result shows the fused score and the cosine only.
        ...(c.scores.text !== undefined && scope === "main" ? { text: round(c.scores.text) } : {}),
        ...(c.scores.rerank !== undefined ? { rerank: round(c.scores.rerank) } : {}),
      },
      ...(mode !== "keyword" && embedder
        ? { provider: embedder.id, model: embedder.model, fallback: Boolean(parts.fallback) }
        : {}),
      degraded,
      ...(c.owed || (degraded && owedPaths?.has(c.chunk.path)) ? { vectorOwed: true } : {}),
    };
  });
  return {
    query,
    mode,
    results,
    degraded,
    ...(degradedReason !== undefined ? { degradedReason } : {}),
    ...(owedPaths?.size ? { vectorsOwed: owedPaths.size } : {}),
    ...(rerank ? { rerank } : {}),
  };
}

/**
 * Why the vector side cannot run, or undefined when it can. Vectors are only compared with vectors
 * of the same provider, model, dims and endpoint, read from the index identity the store recorded.
 */
async function whyNoVectors(
  store: MemoryStore,
  embedder: Embedder | null,
  indexed: EmbeddingIdentity | null | undefined,
): Promise<string | undefined> {
  if (!embedder) return "no embedding provider is configured";
  if (!store.capabilities.vector) return `the ${store.kind} store has no vector search`;
  const stored =
    indexed !== undefined
      ? indexed
      : parseIdentity(await store.getMeta(IDENTITY_META_KEY))?.embedding;
  if (!stored) return "the index holds no vectors yet (run engram sync)";
  const wanted = embeddingIdentity(embedder);
  if (describeEmbedding(stored) !== describeEmbedding(wanted)) {
    return `the index was embedded with ${describeEmbedding(stored)}, not ${describeEmbedding(wanted)} (run engram sync to rebuild)`;
  }
  return undefined;
}

/**
 * Start `task` now (synchronously, so its I/O is under way before the caller's next step) and
 * return its outcome as a promise that never rejects: it can run while other work is awaited
 * without its failure counting as unhandled. A synchronous throw becomes an outcome too.
 */
function settle<T>(task: () => Promise<T>): Promise<{ value: T } | { error: unknown }> {
  return new Promise<T>((resolve) => resolve(task())).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** `termsOf` answering each distinct text once (for the lines of one query's results). */
function memoised(termsOf: (text: string) => string[]): (text: string) => string[] {
  const seen = new Map<string, string[]>();
  return (text) => {
    let terms = seen.get(text);
    if (terms === undefined) {
      terms = termsOf(text);
      seen.set(text, terms);
    }
    return terms;
  };
}
