import { describe, expect, it } from "vitest";
import { cutSnippet } from "../../src/search/snippet.js";
import { createAnalyzer } from "../../src/text/analyzer.js";

const analyzer = createAnalyzer();
const termsOf = (t: string) => analyzer.terms(t);
const q = (text: string) => new Set(analyzer.terms(text));

describe("cutSnippet", () => {
  it("returns a short chunk whole, minus blank edge lines", () => {
    const s = cutSnippet(
      { text: "\n# Title\nbody line\n\n", startLine: 10, endLine: 14 },
      q("body"),
      termsOf,
      700,
    );
    expect(s).toEqual({ text: "# Title\nbody line", startLine: 11, endLine: 12 });
  });

  it("picks the window holding the query terms and reports exactly its lines", () => {
    const lines = Array.from(
      { length: 40 },
      (_, i) => `line ${i + 1} filler text about nothing in particular`,
    );
    lines[29] = "the rollback plan lives in ops/rollback.md";
    const text = lines.join("\n");
    const s = cutSnippet({ text, startLine: 101, endLine: 140 }, q("rollback plan"), termsOf, 300);
    expect(s.text.length).toBeLessThanOrEqual(300);
    expect(s.text).toContain("the rollback plan");
    const shown = s.text.split("\n");
    expect(shown).toEqual(lines.slice(s.startLine - 101, s.endLine - 101 + 1));
    expect(s.startLine).toBeLessThanOrEqual(130);
    expect(s.endLine).toBeGreaterThanOrEqual(130);
  });

  it("finds Chinese terms", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `第${i}行：今天天气不错，适合散步和读书。`);
    lines[20] = "长期记忆存储用户偏好";
    const s = cutSnippet(
      { text: lines.join("\n"), startLine: 1, endLine: 30 },
      q("用户偏好"),
      termsOf,
      120,
    );
    expect(s.text).toContain("用户偏好");
    expect(s.text.length).toBeLessThanOrEqual(120);
  });

  it("cuts a single over-long line around its first match", () => {
    const line = `${"x".repeat(2000)} needle ${"y".repeat(2000)}`;
    const s = cutSnippet({ text: line, startLine: 7, endLine: 7 }, q("needle"), termsOf, 700);
    expect(s.text.length).toBeLessThanOrEqual(700);
    expect(s.text).toContain("needle");
    expect(s).toMatchObject({ startLine: 7, endLine: 7 });
  });
});
