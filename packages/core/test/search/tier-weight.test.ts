import { describe, expect, it } from "vitest";
import { compareCandidates } from "../../src/search/fusion.js";
import { applyTierWeights, DEFAULT_TIER_WEIGHTS } from "../../src/search/tier-weight.js";
import type { Candidate } from "../../src/search/types.js";
import type { Tier } from "../../src/tier.js";

const candidate = (path: string, tier: Tier, score: number) =>
  ({ chunk: { path, tier, startLine: 1 }, score, scores: {} }) as unknown as Candidate;

describe("tier weights", () => {
  it("rank long-term first when scores tie closely, but not over a clearly better match", () => {
    const ranked = applyTierWeights([
      candidate("memory/2026-01-02.md", "short", 0.8),
      candidate("memory/archive/old.md", "archive", 0.8),
      candidate("MEMORY.md", "long", 0.78),
      candidate("memory/mid-term/projects/p/notes.md", "mid", 0.79),
    ]).sort(compareCandidates);
    expect(ranked.map((c) => c.chunk.tier)).toEqual(["long", "mid", "short", "archive"]);
    const clear = applyTierWeights([
      candidate("memory/2026-01-02.md", "short", 0.9),
      candidate("MEMORY.md", "long", 0.8),
    ]).sort(compareCandidates);
    expect(clear.map((c) => c.chunk.tier)).toEqual(["short", "long"]);
    expect(clear[0]?.score).toBeCloseTo(0.9 * DEFAULT_TIER_WEIGHTS.short);
  });

  it("take configured weights, leave missing tiers alone and never change the input", () => {
    const input = [candidate("a.md", "short", 0.5)];
    expect(applyTierWeights(input, { short: 0.5 })[0]?.score).toBe(0.25);
    expect(applyTierWeights(input, { long: 0.1 })[0]?.score).toBe(0.5);
    expect(input[0]?.score).toBe(0.5);
  });
});
