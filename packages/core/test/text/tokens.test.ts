import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/text/index.js";

describe("estimateTokens", () => {
  it("is 0 for empty text", () => {
    expect(estimateTokens("")).toBe(0);
  });

  it("counts other characters as a quarter token, rounded up", () => {
    expect(estimateTokens("a")).toBe(1);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("hello world")).toBe(3);
    expect(estimateTokens("x".repeat(400))).toBe(100);
  });

  it("counts each CJK character as one token", () => {
    expect(estimateTokens("长期记忆")).toBe(4);
    expect(estimateTokens("ひらがなカタカナ")).toBe(8);
    expect(estimateTokens("서울특별시")).toBe(5);
    expect(estimateTokens("。、「」")).toBe(4);
    expect(estimateTokens("ＡＢＣ")).toBe(3);
  });

  it("adds CJK and other counts", () => {
    // 6 CJK + "Python" (6 other) + "fastapi" (7 other) = 6 + ceil(13 / 4)
    expect(estimateTokens("我喜欢用Python写fastapi服务")).toBe(7 + 4);
  });

  it("counts astral characters once", () => {
    expect(estimateTokens("𠀀𠀁𪚥")).toBe(3); // CJK Extension B
    expect(estimateTokens("😀😀😀😀")).toBe(1); // 4 non-CJK code points
    expect(estimateTokens("a\u{20000}")).toBe(2);
  });

  it("counts a lone surrogate as one character", () => {
    expect(estimateTokens("\ud840")).toBe(1);
    expect(estimateTokens("\udc00abc")).toBe(1);
  });
});
