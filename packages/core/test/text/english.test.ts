import { describe, expect, it } from "vitest";
import winkStem from "wink-porter2-stemmer";
import { porter2Stem } from "../../src/text/english.js";

/** Deterministic PRNG (mulberry32), so the word lists are the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every word of `length` letters over `alphabet`. */
function allWords(alphabet: string, length: number, out: string[], prefix = ""): void {
  if (prefix.length === length) {
    out.push(prefix);
    return;
  }
  for (const letter of alphabet) allWords(alphabet, length, out, prefix + letter);
}

/** Every suffix a Porter2 rule looks for (stacked at random onto roots below). */
const SUFFIXES = [
  ..."ational tional enci anci izer bli alli entli eli ousli ization ation ator alism".split(" "),
  ..."iveness fulness ousness aliti iviti biliti logi fulli lessli li alize icate iciti ical".split(
    " ",
  ),
  ..."ful ness ative al ance ence er ic able ible ant ement ment ent ism ate iti ous ive ize".split(
    " ",
  ),
  ..."ion sion tion e l ll s es ies ied sses us ss eed eedly ed edly ing ingly y ly at bl iz".split(
    " ",
  ),
  ..."bb dd ff gg mm nn pp rr tt yed ying ay ey oy uy yy ogist ogy".split(" "),
];

/** English words, Porter2's exceptions and the words where the two stemmers part ways. */
const WORDS = [
  ..."deploy deployed deployment deployments release released releasing latency memories".split(
    " ",
  ),
  ..."relational conditional rational hopefulness generalization happily dashboard feedback".split(
    " ",
  ),
  ..."skis skies dying lying tying idly gently ugly early only singly sky news howe atlas".split(
    " ",
  ),
  ..."cosmos bias andes inning outing canning herring earring proceed exceed succeed".split(" "),
  ..."generously communication arsenal yes yyy ayy eyed yelling playboy payday heyday".split(" "),
  ..."oed aing eings iedly sses byyness ayayal employee journeyway yesteryear".split(" "),
];

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

function wordList(): string[] {
  const words = [...WORDS];
  for (let length = 1; length <= 4; length++) allWords(LETTERS, length, words);
  // Five letters over the vowels, y and the consonants Porter2's suffixes end in.
  allWords("aeiouybdglnst", 5, words);
  const next = random(2026);
  const pick = (text: string) => text[Math.floor(next() * text.length)] as string;
  for (let i = 0; i < 100_000; i++) {
    let word = "";
    const length = 5 + Math.floor(next() * 10);
    // Vowels and y often, so that the y rule and the regions R1 and R2 vary.
    for (let j = 0; j < length; j++) word += next() < 0.45 ? pick("aeiouyy") : pick(LETTERS);
    words.push(word);
  }
  for (let i = 0; i < 50_000; i++) {
    let word = "";
    const rootLength = 1 + Math.floor(next() * 6);
    for (let j = 0; j < rootLength; j++) word += pick(LETTERS);
    const suffixes = 1 + Math.floor(next() * 3);
    for (let j = 0; j < suffixes; j++) word += SUFFIXES[Math.floor(next() * SUFFIXES.length)];
    words.push(word);
  }
  return words;
}

describe("porter2Stem", () => {
  it("stems every word exactly as wink-porter2-stemmer does (the stems indexes hold)", () => {
    const differ: string[] = [];
    for (const word of wordList()) {
      const expected = winkStem(word);
      if (porter2Stem(word) !== expected) differ.push(`${word}: ${expected}`);
    }
    expect(differ).toEqual([]);
  }, 120_000);

  it("keeps wink's stems where the porter2 package differs", () => {
    expect(["oed", "howe", "sses", "byyness", "ayayal"].map(porter2Stem)).toEqual([
      "oe",
      "how",
      "sses",
      "byyness",
      "ayayal",
    ]);
    expect(porter2Stem("memories")).toBe("memori");
    expect(porter2Stem("deployed")).toBe("deploy");
  });
});
