import { describe, expect, it } from "vitest";
import { cutSnippet } from "../../src/search/snippet.js";
import { lineTermWeights } from "../../src/search/term-weights.js";
import { createAnalyzer } from "../../src/text/analyzer.js";

const analyzer = createAnalyzer();
const termsOf = (t: string) => analyzer.terms(t);
const q = (text: string) => new Set(analyzer.terms(text));
const term = (word: string) => analyzer.terms(word)[0] as string;

describe("lineTermWeights", () => {
  it("weighs a term on every line far below a rare one", () => {
    const text = ["Caroline: hi", "Caroline: the weather", "Caroline: adoption agency call"].join(
      "\n",
    );
    const w = lineTermWeights([text], q("Caroline adoption"), termsOf);
    expect(w.get(term("adoption")) ?? 0).toBeGreaterThan(5 * (w.get(term("Caroline")) ?? 1));
  });

  it("steers the snippet window to the rare terms (a chat log full of the speakers' names)", () => {
    // 60 lines naming both speakers, then 40 lines of other talk, one of them the answer.
    const lines = Array.from({ length: 100 }, (_, i) =>
      i < 60
        ? `- [D1:${i + 1}] Caroline: Melanie, small talk ${i}`
        : `- [D1:${i + 1}] Bob: weather ${i}`,
    );
    lines[80] = "- [D1:81] Bob: the adoption agency called";
    const chunk = { text: lines.join("\n"), startLine: 1, endLine: 100 };
    const query = q("When did Caroline tell Melanie about the adoption agency?");
    const plain = cutSnippet(chunk, query, termsOf, 200);
    const weights = lineTermWeights([chunk.text], query, termsOf);
    const weighted = cutSnippet(chunk, query, termsOf, 200, weights);
    expect(weighted.text).toContain("adoption agency");
    expect(weighted.startLine).toBeLessThanOrEqual(81);
    expect(weighted.endLine).toBeGreaterThanOrEqual(81);
    expect(plain.text).not.toContain("adoption agency");
  });

  it("handles Chinese terms", () => {
    const text = ["小明：今天天气不错", "小明：今天去公园", "小明：下周去杭州出差"].join("\n");
    const w = lineTermWeights([text], q("小明 杭州"), termsOf);
    expect(w.get("杭州") ?? 0).toBeGreaterThan(w.get("小明") ?? 1);
  });
});
