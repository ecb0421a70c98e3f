import type { Reranker } from "../model/reranker.js";
import type { StoredChunk } from "../store/records.js";
import type { Candidate } from "./types.js";

/** How search runs a reranker (the config's `search.rerank` numbers). */
export interface RerankSettings {
  /** Most fused candidates sent to the reranker (at least `maxResults` are). */
  candidates: number;
  /** The deadline: past it, the fused order stands and the response says why. */
  timeoutMs: number;
}

/** What happened to the rerank stage of one search (`SearchResponse.rerank`). */
export interface RerankOutcome {
  /** True when the results are in the reranker's order. */
  applied: boolean;
  /** The reranker asked (`id`), its model. */
  provider: string;
  model: string;
  /** Candidates sent to it. */
  candidates: number;
  /** Milliseconds the stage took (until the answer, the failure or the deadline). */
  ms: number;
  /** Why the fused order was kept: the deadline passed, the reranker failed or answered badly. */
  skipped?: string;
}

/** Reranked candidates and what happened. */
export interface Reranked {
  candidates: Candidate[];
  outcome: RerankOutcome;
}

/**
 * Reorder the best fused candidates by `reranker`, fail-open: the first `max(candidates,
 * maxResults)` (and at most the reranker's `maxDocuments`) are sent with their chunk text; when it
 * answers in time with one finite score per document they take its order (ties keep the fused
 * order) and `score` becomes the reranker's score scaled to [0, 1] over them (best 1, worst 0;
 * `scores.rerank` keeps its own value); the candidates not sent follow, unchanged below them.
 * When it throws, answers badly or misses the deadline, the fused order stands and
 * `outcome.skipped` says why. A caller's abort is passed on and rethrown, never swallowed.
 */
export async function rerankCandidates(
  query: string,
  ranked: readonly Candidate[],
  reranker: Reranker,
  settings: RerankSettings & {
    maxResults: number;
    /**
     * The text of each candidate the reranker may read (see `privacy/model-view.ts`); default
     * the chunk text as indexed.
     */
    view?: (chunks: readonly StoredChunk[]) => Promise<string[]>;
  },
  signal?: AbortSignal,
): Promise<Reranked> {
  const depth = Math.min(
    Math.max(settings.candidates, settings.maxResults),
    reranker.maxDocuments ?? Number.POSITIVE_INFINITY,
  );
  const head = ranked.slice(0, depth);
  const started = performance.now();
  const outcome = (skipped?: string): RerankOutcome => ({
    applied: skipped === undefined,
    provider: reranker.id,
    model: reranker.model,
    candidates: head.length,
    ms: Math.round((performance.now() - started) * 10) / 10,
    ...(skipped !== undefined ? { skipped } : {}),
  });
  if (head.length < 2) return { candidates: [...ranked], outcome: outcome() };

  const deadline = new AbortController();
  const onAbort = () => deadline.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      resolve("timeout");
      deadline.abort(new Error(`rerank deadline of ${settings.timeoutMs} ms passed`));
    }, settings.timeoutMs);
  });
  let scores: number[] | "timeout";
  try {
    scores = await Promise.race([
      (settings.view
        ? settings.view(head.map((c) => c.chunk))
        : Promise.resolve(head.map((c) => c.chunk.text))
      ).then((documents) => reranker.rerank(query, documents, { signal: deadline.signal })),
      timedOut,
    ]);
  } catch (error) {
    signal?.throwIfAborted();
    return {
      candidates: [...ranked],
      outcome: outcome(`the reranker failed: ${(error as Error)?.message ?? String(error)}`),
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  signal?.throwIfAborted();
  if (scores === "timeout") {
    return {
      candidates: [...ranked],
      outcome: outcome(`no answer within the ${settings.timeoutMs} ms deadline`),
    };
  }
  if (
    !Array.isArray(scores) ||
    scores.length !== head.length ||
    !scores.every((s) => typeof s === "number" && Number.isFinite(s))
  ) {
    return {
      candidates: [...ranked],
      outcome: outcome(
        `the reranker answered ${Array.isArray(scores) ? `${scores.length} scores` : "no scores"} for ${head.length} documents`,
      ),
    };
  }
  const best = Math.max(...scores);
  const worst = Math.min(...scores);
  const reordered = head
    .map((candidate, i) => ({ candidate, raw: scores[i] as number, i }))
    .sort((a, b) => b.raw - a.raw || a.i - b.i)
    .map(({ candidate, raw }) => ({
      ...candidate,
      score: best > worst ? (raw - worst) / (best - worst) : 1,
      scores: { ...candidate.scores, rerank: raw },
    }));
  // The candidates not sent keep their order, below every reranked one.
  const floor = Math.min(0, ...reordered.map((c) => c.score));
  const tail = ranked.slice(head.length).map((c) => ({ ...c, score: Math.min(c.score, floor) }));
  return { candidates: [...reordered, ...tail], outcome: outcome() };
}
