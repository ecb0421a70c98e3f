import { describe, expect, it } from "vitest";
import { isEngramError } from "../../src/errors.js";
import { type Analyzer, createAnalyzer } from "../../src/text/index.js";

// Surface splitting is tested without English stemming and stop words (see "English words" below).
const plain = { english: "none", stopWords: false } as const;
const bigrams = createAnalyzer(plain);
const words = createAnalyzer({ ...plain, cjk: "words" });
const both: Array<[string, Analyzer]> = [
  ["bigrams", bigrams],
  ["words", words],
];

const TERM = /^[\p{L}\p{M}\p{N}]+$/u;

/** Deterministic PRNG (mulberry32), so the property test is reproducible. */
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

const FRAGMENTS = [
  "memorySearch.query.hybrid",
  "snake_case_name",
  "sqlite-vec",
  "https://example.com/a/b?q=1&x=y#frag",
  "user@example.org",
  "a828e60",
  "café",
  "cafe\u0301",
  "ｆｕｌｌ－ｗｉｄｔｈ１２３",
  "ﾊﾝｶｸｶﾀｶﾅ",
  "😀👍🏽👨‍👩‍👧",
  "e\u0301\u0308\u20dd",
  "\u0301\u0302",
  "长期记忆存储用户偏好",
  "東京タワーに行った",
  "서울특별시에 갔다",
  "ภาษาไทยง่ายนิดเดียว",
  "ພາສາລາວ",
  "ភាសាខ្មែរ",
  "မြန်မာ",
  "Ελληνικά",
  "русский",
  "עברית",
  "العربية",
  "हिन्दी",
  "𠀀𠀁𪚥",
  "㈱㍻①",
  "x²+y³=z₄",
  "$100.00",
  "C++ / C# / F#",
  "#tag @mention",
  "`code()` **bold** _it_",
  "<div>html</div>",
  "\t\n\r\u00a0\u3000",
  "…—–‘’“”«»",
  "\ufeff\u200b\u200d",
  "İstanbul",
  "ß",
  "ﬁ",
  "\ud800",
  "\udfff",
  "々〆〇ー",
  "がぱ",
  "か\u3099",
  "漢\ufe00字",
];

function randomText(next: () => number): string {
  const parts: string[] = [];
  const count = 1 + Math.floor(next() * 8);
  for (let i = 0; i < count; i++) {
    const roll = next();
    if (roll < 0.7) {
      parts.push(FRAGMENTS[Math.floor(next() * FRAGMENTS.length)] as string);
    } else {
      // Arbitrary code points, including astral, controls and unassigned.
      let s = "";
      const len = 1 + Math.floor(next() * 6);
      for (let j = 0; j < len; j++) {
        const cp = next() < 0.8 ? Math.floor(next() * 0x3000) : Math.floor(next() * 0x30000);
        s += cp >= 0xd800 && cp <= 0xdfff ? "?" : String.fromCodePoint(cp);
      }
      parts.push(s);
    }
    parts.push(next() < 0.5 ? " " : "");
  }
  return parts.join("");
}

describe("createAnalyzer", () => {
  it("has an id naming version and options", () => {
    expect(bigrams.id).toBe("engram-analyzer/4;cjk=bigrams;en=none");
    expect(words.id).toBe("engram-analyzer/4;cjk=words;en=none");
    expect(createAnalyzer().id).toBe("engram-analyzer/4;cjk=bigrams;en=porter2+stop");
  });

  it("rejects an unknown CJK mode", () => {
    let caught: unknown;
    try {
      createAnalyzer({ cjk: "unigrams" as "words" });
    } catch (error) {
      caught = error;
    }
    expect(isEngramError(caught, "INVALID_ARGUMENT")).toBe(true);
  });

  it.each(both)("gives [] for empty, whitespace or punctuation only text (%s)", (_, analyzer) => {
    expect(analyzer.terms("")).toEqual([]);
    expect(analyzer.terms("   \n\t ")).toEqual([]);
    expect(analyzer.terms("... --- !!! ?? ,,, 。、！？「」")).toEqual([]);
    expect(analyzer.terms("😀 👍")).toEqual([]);
  });

  it("splits identifiers and punctuation in spaced scripts", () => {
    expect(bigrams.terms("memorySearch.query.hybrid")).toEqual(["memorysearch", "query", "hybrid"]);
    expect(bigrams.terms("snake_case sqlite-vec")).toEqual(["snake", "case", "sqlite", "vec"]);
    expect(bigrams.terms("commit a828e60")).toEqual(["commit", "a828e60"]);
    expect(bigrams.terms("Русский ТЕКСТ, Ελληνικά!")).toEqual(["русский", "текст", "ελληνικά"]);
  });

  it("joins a short word and a number across one hyphen, after the parts", () => {
    expect(bigrams.terms("IL-6 and IL6")).toEqual(["il", "6", "il6", "and", "il6"]);
    expect(bigrams.terms("3-D CD-4+ x-ray covid-19")).toEqual([
      ...["3", "d", "3d", "cd", "4", "cd4", "x", "ray", "covid", "19"],
    ]);
    // No join inside a longer chain, across two hyphens or spaces, or into a longer run.
    expect(bigrams.terms("anti-IL-6 il-6-r il--6 il - 6 il-6é")).toEqual([
      ...["anti", "il", "6", "il", "6", "r", "il", "6", "il", "6", "il", "6é"],
    ]);
    // A script change ends the run: the join holds before Chinese.
    expect(bigrams.terms("IL-6基因")).toEqual(["il", "6", "il6", "基", "基因", "因"]);
    // The parts go through the English rules (a stop word is dropped); the joined term is kept.
    expect(createAnalyzer().terms("a-1 IL-6")).toEqual(["1", "a1", "il", "6", "il6"]);
  });

  it("normalises with NFKC and lower-cases", () => {
    expect(bigrams.terms("Café")).toEqual(["café"]);
    expect(bigrams.terms("Cafe\u0301")).toEqual(["café"]); // decomposed → composed
    expect(bigrams.terms("ＦＵＬＬ－ｗｉｄｔｈ")).toEqual(["full", "width"]);
    expect(bigrams.terms("ﬁle")).toEqual(["file"]);
  });

  it.each(both)("keeps the terms of a substring among the terms of the text (%s)", (_, a) => {
    const text = new Set(a.terms("长期记忆存储用户偏好"));
    const query = a.terms("用户偏好");
    expect(query.length).toBeGreaterThan(0);
    for (const term of query) expect(text).toContain(term);
  });

  it("emits unigrams and bigrams in text order for CJK", () => {
    expect(bigrams.terms("用户偏好")).toEqual(["用", "用户", "户", "户偏", "偏", "偏好", "好"]);
    expect(bigrams.terms("好")).toEqual(["好"]);
    expect(bigrams.terms("好。好")).toEqual(["好", "好"]);
  });

  it("uses ICU words in words mode", () => {
    expect(words.terms("用户偏好")).toEqual(["用户", "偏好"]);
  });

  it.each(both)("separates Latin from Chinese in mixed text (%s)", (_, analyzer) => {
    const terms = analyzer.terms("我喜欢用Python写fastapi服务");
    expect(terms).toContain("python");
    expect(terms).toContain("fastapi");
    expect(terms.some((t) => /^[我喜欢用]+$/u.test(t))).toBe(true);
    expect(terms.some((t) => /^[服务]+$/u.test(t))).toBe(true);
    for (const term of terms)
      expect(/[a-z][\u4e00-\u9fff]|[\u4e00-\u9fff][a-z]/u.test(term)).toBe(false);
  });

  it("analyses Japanese kana and kanji together", () => {
    const terms = bigrams.terms("東京タワーに行った");
    expect(terms).toContain("東京");
    expect(terms).toContain("タワ");
    expect(terms).toContain("ワー");
    expect(terms).toContain("ー");
    expect(terms).toContain("行");
    expect(words.terms("東京タワーに行った")).toContain("東京タワー");
  });

  it.each(both)("keeps Korean words whole (%s)", (_, analyzer) => {
    expect(analyzer.terms("서울특별시에 갔다")).toEqual(["서울특별시에", "갔다"]);
  });

  it.each(both)("segments Thai into several words (%s)", (_, analyzer) => {
    const terms = analyzer.terms("ภาษาไทยง่ายนิดเดียว");
    expect(terms.length).toBeGreaterThan(2);
    expect(terms.filter((t) => [...t].length > 1).length).toBeGreaterThan(2);
    expect(terms.join("")).toBe("ภาษาไทยง่ายนิดเดียว");
  });

  it("segments Lao, Khmer and Myanmar", () => {
    expect(bigrams.terms("ພາສາລາວງ່າຍ").length).toBeGreaterThan(1);
    expect(bigrams.terms("ភាសាខ្មែរងាយស្រួល").length).toBeGreaterThan(1);
    expect(bigrams.terms("မြန်မာဘာသာစကား").length).toBeGreaterThan(1);
  });

  it("handles astral CJK characters as single characters", () => {
    expect(bigrams.terms("𠀀𠀁")).toEqual(["𠀀", "𠀀𠀁", "𠀁"]);
    expect(bigrams.terms("a𠀀b")).toEqual(["a", "𠀀", "b"]);
  });

  it("keeps combining marks with their base character", () => {
    expect(bigrams.terms("か\u3099き")).toEqual(["が", "がき", "き"]); // NFKC composes
    expect(bigrams.terms("漢\ufe00字")).toEqual(["漢\ufe00", "漢\ufe00字", "字"]);
    expect(bigrams.terms("\u0301")).toEqual([]);
  });

  it.each(both)("only ever emits letters, marks and numbers (%s)", (_, analyzer) => {
    const next = random(20_260_101);
    for (let i = 0; i < 2_000; i++) {
      const text = randomText(next);
      const terms = analyzer.terms(text);
      for (const term of terms) {
        if (!TERM.test(term))
          throw new Error(`bad term ${JSON.stringify(term)} from ${JSON.stringify(text)}`);
      }
      // Joining with spaces and splitting on whitespace gives the terms back.
      const rejoined = terms.join(" ");
      expect(rejoined === "" ? [] : rejoined.split(" ")).toEqual(terms);
      // Analysing is deterministic.
      expect(analyzer.terms(text)).toEqual(terms);
    }
  });

  it.each(both)("analyses long unpunctuated Chinese and Thai without hanging (%s)", (_, a) => {
    const chinese = "长期记忆存储用户偏好东京塔下的咖啡馆".repeat(7_000); // ~126k chars, ~380 KB
    const terms = a.terms(chinese);
    expect(terms.length).toBeGreaterThan(chinese.length / 4);
    const thai = "ภาษาไทยง่ายนิดเดียว".repeat(3_000);
    const thaiTerms = a.terms(thai);
    expect(thaiTerms.join("")).toBe(thai);
    expect(thaiTerms.filter((t) => t === "ภาษา").length).toBe(3_000);
  });

  it("segments long Chinese runs in words mode without losing text", () => {
    const chinese = "长期记忆存储用户偏好".repeat(1_000);
    expect(words.terms(chinese).join("")).toBe(chinese);
  });
});

describe("English words (the default analyzer)", () => {
  const analyzer = createAnalyzer();

  it("reduces English words to Porter2 stems, so inflections match", () => {
    expect(analyzer.terms("Memories of deployed services")).toEqual(["memori", "deploy", "servic"]);
    expect(analyzer.terms("memory")).toEqual(analyzer.terms("memories"));
    expect(analyzer.terms("studies")).toEqual(analyzer.terms("study"));
  });

  it("drops stop words, but not when they carry digits or other scripts", () => {
    expect(analyzer.terms("the state of the art")).toEqual(["state", "art"]);
    expect(analyzer.terms("a1 the2")).toEqual(["a1", "the2"]);
  });

  it("leaves non-English words, numbers and CJK as they were", () => {
    expect(analyzer.terms("café Русский 2026 a828e60")).toEqual([
      "café",
      "русский",
      "2026",
      "a828e60",
    ]);
    expect(analyzer.terms("长期记忆存储用户偏好")).toEqual(bigrams.terms("长期记忆存储用户偏好"));
    expect(analyzer.terms("用Python写")).toEqual(["用", "python", "写"]);
  });

  it("rejects an unknown English mode", () => {
    expect(() => createAnalyzer({ english: "lancaster" as "none" })).toThrow(/Unknown English/);
  });
});

describe("query terms", () => {
  const analyzer = createAnalyzer();

  it("cut Chinese questions at question words, leaving out the bigrams across them", () => {
    expect(analyzer.queryTerms?.("由哪两个公司开发")).toEqual([
      "由",
      "两",
      "两个",
      "个",
      "个公",
      "公",
      "公司",
      "司",
      "司开",
      "开",
      "开发",
      "发",
    ]);
    // Longest match first: 为什么 goes whole, not 什么 inside it.
    expect(analyzer.queryTerms?.("他为什么走")).toEqual(["他", "走"]);
    expect(analyzer.queryTerms?.("锣鼓经是什么？")).toEqual(analyzer.terms("锣鼓经是"));
  });

  it("leave documents, English and content words alone", () => {
    expect(analyzer.terms("谁知道")).toEqual(["谁", "谁知", "知", "知道", "道"]);
    expect(analyzer.queryTerms?.("几何学")).toEqual(analyzer.terms("几何学"));
    expect(analyzer.queryTerms?.("deploy the index?")).toEqual(analyzer.terms("deploy the index?"));
    expect(analyzer.queryTerms?.("多少钱")).toEqual(["钱"]);
  });

  it("fall back to every term when a query is nothing but question words", () => {
    expect(analyzer.queryTerms?.("什么？谁")).toEqual(analyzer.terms("什么？谁"));
  });

  it("apply in words mode too", () => {
    const words = createAnalyzer({ cjk: "words" });
    expect(words.queryTerms?.("用户喜欢什么")).not.toContain("什么");
    expect(words.queryTerms?.("用户喜欢什么")).toContain("用户");
  });
});
