import { describe, expect, it } from "vitest";
import {
  CHARACTER_TERM_WEIGHT,
  createAnalyzer,
  isCharacterTerm,
  termFrequencyWeight,
} from "../../src/text/index.js";

describe("character terms", () => {
  it("are single Han or kana characters, with any combining marks", () => {
    for (const term of ["记", "忆", "の", "カ", "ー", "𠮷", "か\u3099"]) {
      expect(isCharacterTerm(term), term).toBe(true);
    }
  });

  it("are not bigrams, words, numbers, Hangul or Latin letters", () => {
    for (const term of ["记忆", "カタ", "memori", "a", "1", "한", "é", "ไทย", ""]) {
      expect(isCharacterTerm(term), term).toBe(false);
    }
  });

  it("weigh CHARACTER_TERM_WEIGHT and every other term 1", () => {
    expect(termFrequencyWeight("忆")).toBe(CHARACTER_TERM_WEIGHT);
    expect(termFrequencyWeight("记忆")).toBe(1);
    expect(termFrequencyWeight("memori")).toBe(1);
  });

  it("are exactly the analyzer's CJK unigrams in bigram mode", () => {
    const terms = createAnalyzer().terms("用Python写记忆系统，カタカナも。");
    expect(terms.filter(isCharacterTerm)).toEqual([
      "用",
      "写",
      "记",
      "忆",
      "系",
      "统",
      "カ",
      "タ",
      "カ",
      "ナ",
      "も",
    ]);
  });

  it("saturate at once: BM25's term-frequency part is presence within 1 %", () => {
    const k1 = 1.2;
    const b = 0.75;
    const part = (count: number, relativeLength: number) => {
      const tf = count * CHARACTER_TERM_WEIGHT;
      return (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * relativeLength));
    };
    for (const count of [1, 3, 10]) {
      for (const length of [0.2, 1, 10]) {
        expect(part(count, length) / (k1 + 1)).toBeGreaterThan(0.99);
      }
    }
  });
});
