import { describe, expect, it } from "vitest";
import {
  buildTinyBertGguf,
  ggufTokenText,
  SPECIAL_TOKENS,
  tinyBertVocabulary,
} from "./fixtures/tiny-bert-gguf.js";

describe("tiny BERT fixture", () => {
  it("is deterministic per seed and a few hundred KB at most", () => {
    const a = buildTinyBertGguf();
    const b = buildTinyBertGguf();
    const other = buildTinyBertGguf({ seed: 2 });
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(other))).toBe(false);
    expect(a.length).toBeLessThan(400 * 1024);
    expect(Buffer.from(a.subarray(0, 4)).toString("latin1")).toBe("GGUF");
  });

  it("has a WordPiece vocabulary with the special tokens first, ## pieces and CJK", () => {
    const vocab = tinyBertVocabulary();
    expect(vocab.slice(0, 5)).toEqual([...SPECIAL_TOKENS]);
    expect(new Set(vocab).size).toBe(vocab.length);
    expect(vocab.length).toBeGreaterThan(500);
    expect(vocab).toContain("##ing");
    expect(vocab).toContain("memory");
    expect(vocab).toContain("记");
  });

  it("writes tokens the way convert_hf_to_gguf.py does for llama.cpp's WPM tokenizer", () => {
    expect(ggufTokenText("[CLS]")).toBe("[CLS]");
    expect(ggufTokenText("##ing")).toBe("ing");
    expect(ggufTokenText("memory")).toBe("\u2581memory");
    expect(ggufTokenText("记")).toBe("\u2581记");
  });

  it("rejects a head count that does not divide the hidden size", () => {
    expect(() => buildTinyBertGguf({ hiddenSize: 30, heads: 4 })).toThrow(/must divide/);
  });
});
