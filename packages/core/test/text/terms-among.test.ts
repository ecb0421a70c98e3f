import { stem } from "porter2";
import { describe, expect, it } from "vitest";
import { stemPrefix } from "../../src/text/english.js";
import { createAnalyzer } from "../../src/text/index.js";

/** Deterministic PRNG (mulberry32), so the property tests are reproducible. */
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

const pick = <T>(next: () => number, list: readonly T[]): T =>
  list[Math.floor(next() * list.length)] as T;

/** Every suffix a Porter2 rule looks for, and some that make a word end in one after another. */
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
  ..."bb dd ff gg mm nn pp rr tt yed ying".split(" "),
];

/** Porter2's exceptional forms, and words its special rules treat apart. */
const SPECIAL_WORDS = [
  ..."skis skies dying lying tying idly gently ugly early only singly sky news howe".split(" "),
  ..."atlas cosmos bias andes inning outing canning herring earring proceed exceed".split(" "),
  ..."succeed generously communication arsenal yes yyy ayy eyed yelling".split(" "),
];

const WORDS = [
  ..."deploy deployed deployment deployments release released releasing latency".split(" "),
  ..."relational conditional rational hopefulness generalization happily memories".split(" "),
  ..."running runner sensibility dashboard feedback timeout review reviewed".split(" "),
];

const FRAGMENTS = [
  ...WORDS,
  ...SPECIAL_WORDS,
  "the",
  "and",
  "a828e60",
  "café",
  "cafe\u0301",
  "\u0301",
  "ｆｕｌｌ－ｗｉｄｔｈ１２３",
  "ﾊﾝｶｸｶﾀｶﾅ",
  "长期记忆存储用户偏好",
  "为什么部署失败",
  "東京タワーに行った",
  "서울특별시에 갔다",
  "ภาษาไทยง่ายนิดเดียว",
  "Ελληνικά",
  "İstanbul",
  "ß",
  "ﬁ",
  "𠀀𠀁𪚥",
  "\ud800",
  "か\u3099",
  "x²+y³",
  "snake_case",
  "#tag",
  // English words right against other scripts, marks and digits: whole terms or not.
  "用deploy写",
  "deploy\u0301",
  "\u0301deploy",
  "—\u0301deploy",
  "中\u0301deploy",
  "édeploy",
  "deployé",
  "ไทยrelease",
  "release١",
  "𠀀release",
  "\ud800release",
  "release\udc00",
  // Short words and numbers a hyphen joins (`il-6` → `il`, `6`, `il6`), or does not.
  "IL",
  "6",
  "cd",
  "42",
  "il6",
  "IL-6",
  "3-D",
  "anti-IL-6",
  "il-6-r",
  "IL-6基因",
  "il-6é",
];

/** A word made of a random stem and one to three suffixes. */
function stackedWord(next: () => number): string {
  let word = "";
  const stemLength = 1 + Math.floor(next() * 6);
  for (let i = 0; i < stemLength; i++) {
    word += next() < 0.5 ? pick(next, [..."aeiouy"]) : pick(next, [..."bcdfghjklmnpqrstvwxz"]);
  }
  const suffixes = Math.floor(next() * 4);
  for (let i = 0; i < suffixes; i++) word += pick(next, SUFFIXES);
  return word;
}

function randomText(next: () => number): string {
  const parts: string[] = [];
  const count = 1 + Math.floor(next() * 10);
  for (let i = 0; i < count; i++) {
    parts.push(next() < 0.3 ? stackedWord(next) : pick(next, FRAGMENTS));
    parts.push(pick(next, [" ", " ", "", ".", "\n", "-"]));
  }
  return parts.join("");
}

describe("stemPrefix", () => {
  it("is a prefix of every word stemming to the stem (Porter2 suffixes, stacked)", () => {
    const next = random(26);
    const words = [...SPECIAL_WORDS, ...WORDS];
    for (let i = 0; i < 50_000; i++) words.push(stackedWord(next));
    const misses = words
      .filter((word) => word.length >= 3)
      .filter((word) => !word.startsWith(stemPrefix(stem(word) || word)));
    expect(misses).toEqual([]);
  });

  it("keeps all but the last two letters, at least one", () => {
    expect(stemPrefix("deploy")).toBe("depl");
    expect(stemPrefix("sky")).toBe("s");
    expect(stemPrefix("ab")).toBe("a");
  });
});

describe("termsAmong", () => {
  const options = [
    {},
    { cjk: "words" as const },
    { english: "none" as const },
    { stopWords: false },
  ];
  for (const option of options) {
    it(`gives exactly the terms among the wanted ones (${JSON.stringify(option)})`, () => {
      const analyzer = createAnalyzer(option);
      const next = random(7);
      for (let i = 0; i < 400; i++) {
        const wanted = new Set(
          (analyzer.queryTerms ?? analyzer.terms)(randomText(next)).slice(0, 1 + (i % 4)),
        );
        const among = analyzer.termsAmong?.(wanted);
        expect(among).toBeDefined();
        for (let j = 0; j < 20; j++) {
          const text = randomText(next);
          expect(among?.(text)).toEqual(analyzer.terms(text).filter((t) => wanted.has(t)));
        }
      }
    });
  }

  it("finds inflections of a query's stems and Chinese bigrams in a line", () => {
    const analyzer = createAnalyzer();
    const among = analyzer.termsAmong?.(new Set(analyzer.terms("deployment 部署")));
    expect(among?.("We deployed two deployments; 部署完成")).toEqual([
      "deploy",
      "deploy",
      "部",
      "部署",
      "署",
    ]);
    expect(among?.("nothing to see here")).toEqual([]);
  });
});
