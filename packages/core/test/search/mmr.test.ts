import { describe, expect, it } from "vitest";
import { jaccard, mmrByTerms, mmrSelect } from "../../src/search/mmr.js";
import { createAnalyzer } from "../../src/text/analyzer.js";
import { candidate } from "./candidate.js";

const analyzer = createAnalyzer();
const termsOf = (t: string) => analyzer.terms(t);

describe("jaccard", () => {
  it("is shared over all terms, 0 for two empty sets", () => {
    expect(jaccard(new Set(["a", "b"]), new Set(["b", "c"]))).toBeCloseTo(1 / 3);
    expect(jaccard(new Set(["a"]), new Set(["a"]))).toBe(1);
    expect(jaccard(new Set(), new Set())).toBe(0);
  });
});

describe("mmrSelect", () => {
  const a = candidate("a.md", 1, "deploy rollback plan for the api");
  const aCopy = candidate("b.md", 0.95, "deploy rollback plan for the api gateway");
  const other = candidate("c.md", 0.8, "rollback drill notes from friday");

  it("lets a near-copy of a better result give way to one that adds something", () => {
    const picked = mmrByTerms([a, aCopy, other], 2, 0.7, termsOf);
    expect(picked.map((c) => c.chunk.path)).toEqual(["a.md", "c.md"]);
  });

  it("keeps the ranking with lambda 1 and returns at most k", () => {
    expect(mmrByTerms([a, aCopy, other], 2, 1, termsOf).map((c) => c.chunk.path)).toEqual([
      "a.md",
      "b.md",
    ]);
    expect(mmrSelect([a, aCopy, other], 5, 0.7, () => 0)).toHaveLength(3);
    expect(mmrSelect([], 3, 0.7, () => 0)).toEqual([]);
  });

  it("compares Chinese text by its analysed terms", () => {
    const zh1 = candidate("1.md", 1, "明天上线新版本的回滚方案");
    const zh2 = candidate("2.md", 0.9, "明天上线新版本的回滚方案已确认");
    const zh3 = candidate("3.md", 0.7, "数据库备份每周五执行");
    expect(mmrByTerms([zh1, zh2, zh3], 2, 0.7, termsOf).map((c) => c.chunk.path)).toEqual([
      "1.md",
      "3.md",
    ]);
  });
});
