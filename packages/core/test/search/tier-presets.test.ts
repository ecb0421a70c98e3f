import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/load.js";
import { applyTierWeights, TIER_WEIGHT_PRESETS } from "../../src/search/tier-weight.js";
import { candidate } from "./candidate.js";

describe("tier weight presets", () => {
  it("names the three-tier seed's retrieval priority (short > mid > long > archive)", () => {
    const config = resolveConfig({ search: { tierWeights: "three-tier" } });
    expect(config.search.tierWeights).toEqual({ short: 1, mid: 0.97, long: 0.94, archive: 0.9 });
    expect(resolveConfig({ search: { tierWeights: "curated-first" } }).search.tierWeights).toEqual(
      resolveConfig({}).search.tierWeights,
    );
    expect(() => resolveConfig({ search: { tierWeights: "newest" as never } })).toThrow();
    const w = TIER_WEIGHT_PRESETS["three-tier"];
    expect(w.short > w.mid && w.mid > w.long && w.long > w.archive).toBe(true);
  });

  it("ranks equal matches by the preset's priority", () => {
    const tiers = ["archive", "long", "mid", "short"] as const;
    const ranked = applyTierWeights(
      tiers.map((tier) => {
        const c = candidate(`${tier}.md`, 0.8);
        return { ...c, chunk: { ...c.chunk, tier } };
      }),
      TIER_WEIGHT_PRESETS["three-tier"],
    ).sort((a, b) => b.score - a.score);
    expect(ranked.map((c) => c.chunk.tier)).toEqual(["short", "mid", "long", "archive"]);
  });
});
