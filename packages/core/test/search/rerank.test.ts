import { describe, expect, it } from "vitest";
import type { Reranker } from "../../src/model/reranker.js";
import { rerankCandidates } from "../../src/search/rerank.js";
import { countRerank, rerankStatsOf } from "../../src/search/rerank-stats.js";
import { candidate } from "./candidate.js";

/** A reranker scoring by how often "wanted" occurs: a contract-level stand-in for a model. */
function counting(overrides: Partial<Reranker> = {}): Reranker & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    id: "test",
    model: "count-wanted",
    calls,
    async rerank(_query, documents) {
      calls.push([...documents]);
      return documents.map((d) => d.split("wanted").length - 1);
    },
    ...overrides,
  };
}

const ranked = [
  candidate("a.md", 0.9, "nothing"),
  candidate("b.md", 0.8, "wanted"),
  candidate("c.md", 0.7, "wanted wanted"),
  candidate("d.md", 0.6, "wanted"),
  candidate("e.md", 0.5, "wanted wanted wanted"),
];
const settings = { candidates: 4, timeoutMs: 1000, maxResults: 2 };

describe("rerankCandidates", () => {
  it("reorders the best candidates by the reranker, ties in fused order; the rest follow", async () => {
    const reranker = counting();
    const { candidates, outcome } = await rerankCandidates("q", ranked, reranker, settings);
    expect(reranker.calls).toEqual([["nothing", "wanted", "wanted wanted", "wanted"]]);
    expect(candidates.map((c) => c.chunk.path)).toEqual(["c.md", "b.md", "d.md", "a.md", "e.md"]);
    expect(candidates.map((c) => c.score)).toEqual([1, 0.5, 0.5, 0, 0]);
    expect(candidates[0]?.scores.rerank).toBe(2);
    expect(outcome).toMatchObject({
      applied: true,
      provider: "test",
      model: "count-wanted",
      candidates: 4,
    });
    expect(outcome.skipped).toBeUndefined();
  });

  it("sends at least maxResults and at most the reranker's maxDocuments", async () => {
    const wide = counting();
    await rerankCandidates("q", ranked, wide, { ...settings, candidates: 1, maxResults: 3 });
    expect(wide.calls[0]).toHaveLength(3);
    const capped = counting({ maxDocuments: 2 });
    await rerankCandidates("q", ranked, capped, { ...settings, candidates: 30 });
    expect(capped.calls[0]).toHaveLength(2);
  });

  it("fails open: an error, a late answer or a bad answer keeps the fused order and says why", async () => {
    const fused = ranked.map((c) => c.chunk.path);
    const failing = counting({
      rerank: async () => {
        throw new Error("HTTP 503: overloaded");
      },
    });
    const failed = await rerankCandidates("q", ranked, failing, settings);
    expect(failed.candidates.map((c) => c.chunk.path)).toEqual(fused);
    expect(failed.outcome).toMatchObject({ applied: false });
    expect(failed.outcome.skipped).toContain("HTTP 503: overloaded");

    let aborted = false;
    const slow = counting({
      rerank: (_q, _d, options) =>
        new Promise((resolve) => {
          options?.signal?.addEventListener("abort", () => {
            aborted = true;
          });
          setTimeout(() => resolve([1, 2, 3, 4]), 5_000).unref();
        }),
    });
    const late = await rerankCandidates("q", ranked, slow, { ...settings, timeoutMs: 30 });
    expect(late.candidates.map((c) => c.chunk.path)).toEqual(fused);
    expect(late.outcome.skipped).toBe("no answer within the 30 ms deadline");
    expect(aborted).toBe(true);

    const short = counting({ rerank: async () => [1, 2] });
    const bad = await rerankCandidates("q", ranked, short, settings);
    expect(bad.candidates.map((c) => c.chunk.path)).toEqual(fused);
    expect(bad.outcome.skipped).toBe("the reranker answered 2 scores for 4 documents");
    const nan = counting({ rerank: async (_q, d) => d.map(() => Number.NaN) });
    expect((await rerankCandidates("q", ranked, nan, settings)).outcome.applied).toBe(false);
  });

  it("passes the caller's abort on and rethrows it instead of failing open", async () => {
    const controller = new AbortController();
    const hanging = counting({
      rerank: (_q, _d, options) =>
        new Promise((_resolve, reject) => {
          options?.signal?.addEventListener("abort", () => reject(options.signal?.reason));
        }),
    });
    const pending = rerankCandidates("q", ranked, hanging, settings, controller.signal);
    controller.abort(new Error("caller gave up"));
    await expect(pending).rejects.toThrow("caller gave up");
  });

  it("counts calls, documents, skips and latency percentiles across processes", () => {
    let stored: string | null = null;
    const at = new Date("2026-11-25T10:00:00Z");
    for (const ms of [10, 20, 30, 40]) {
      stored = countRerank(
        stored,
        { applied: true, provider: "t", model: "m", candidates: 5, ms },
        at,
      );
    }
    stored = countRerank(
      stored,
      { applied: false, provider: "t", model: "m", candidates: 5, ms: 500, skipped: "late" },
      at,
    );
    expect(rerankStatsOf(stored)).toEqual({
      calls: 5,
      applied: 4,
      skipped: 1,
      documents: 25,
      latency: { p50Ms: 30, p95Ms: 500, lastMs: 500 },
      lastSkipped: { at: at.toISOString(), reason: "late" },
    });
    expect(rerankStatsOf(null)).toMatchObject({ calls: 0, latency: null });
    expect(rerankStatsOf("not json")).toMatchObject({ calls: 0 });
  });
});
