import { EngramError } from "../errors.js";
import { charClass, SEPARATOR } from "./char-class.js";
import { createEnglishNormalizer, isAsciiWord, stemPrefix } from "./english.js";
import { CJK, INHERIT, type ScriptClass, SOUTHEAST_ASIAN, SPACED, scriptClass } from "./script.js";

/**
 * The full-text analyzer: turns a document or a query into terms. Every store driver indexes and
 * queries with the same analyzer, so Chinese, Japanese, Thai and English rank the same everywhere.
 *
 * Guarantee: every term is non-empty and consists only of Unicode letters, marks and numbers
 * (`/^[\p{L}\p{M}\p{N}]+$/u`) — no spaces, punctuation or symbols. A driver may join the terms with
 * spaces and hand them to a whitespace or ASCII tokenizer (e.g. SQLite FTS5 `ascii`) without any
 * term being split again.
 */
export interface Analyzer {
  /**
   * Id, version and options, e.g. `"engram-analyzer/1;cjk=bigrams"`. Part of the index identity:
   * it changes whenever the terms for some text change, so an index is rebuilt rather than
   * searched with terms it was not built with.
   */
  readonly id: string;
  /** Terms of a document or a query, in order, repeats kept. */
  terms(text: string): string[];
  /**
   * Terms of a search query when they differ from {@link terms} (absent: use `terms`). The
   * built-in analyzer leaves out Chinese question words here (see {@link QUESTION_WORDS}).
   */
  queryTerms?(text: string): string[];
  /**
   * A function giving the terms of a text that are among `wanted`, in order, repeats kept: exactly
   * `terms(text).filter((t) => wanted.has(t))`, which the searcher needs for every line of its
   * results (snippets). Optional: an analyzer that can skip work for the terms nobody wants (the
   * built-in one skips texts and stems that cannot hold them) offers it.
   */
  termsAmong?(wanted: ReadonlySet<string>): (text: string) => string[];
}

/**
 * Chinese question words. A query is cut at each (longest match first) and the word is left out
 * with the bigrams across it: the answer to `战国无双3是由哪两个公司开发的？` holds 公司 and 开发,
 * not 哪, 由哪 or 哪两. Query side only: documents keep every term, so the index is unchanged.
 * On CMRC 2018 this lifted keyword nDCG@10 from 0.741 to 0.751; deleting the same words (keeping
 * the bigrams across them) gave 0.749, and adding function characters (的, 了, 是 …) to the list
 * helped nothing. 几 is left out: it starts content words (几乎, 几何).
 */
export const QUESTION_WORDS: readonly string[] = [
  "为什么",
  "什么",
  "哪里",
  "哪个",
  "哪些",
  "多少",
  "怎么",
  "怎样",
  "如何",
  "哪",
  "谁",
];
const QUESTION_SET = new Set(QUESTION_WORDS);
const LONGEST_QUESTION_WORD = Math.max(...QUESTION_WORDS.map((w) => w.length));

/** Options of {@link createAnalyzer}. */
export interface AnalyzerOptions {
  /**
   * How Han, Hiragana and Katakana are split. `"bigrams"` (default): every character as a term and
   * every pair of adjacent characters as a term. `"words"`: ICU dictionary words
   * (`Intl.Segmenter("zh")`).
   *
   * Why bigrams by default: on CMRC 2018 Chinese sentences a plain BM25 over unigrams + bigrams
   * scored nDCG@10 0.677 against 0.665 for ICU words, and bigrams analyse ~14x faster than
   * `Intl.Segmenter`. Bigrams also never depend on context, so a query's terms are always among
   * the terms of a text that contains it.
   */
  cjk?: "bigrams" | "words";
  /**
   * English words (all ASCII letters): `"porter2"` (default) reduces them to Porter2 stems so
   * `memories` matches `memory`; `"none"` keeps them as written.
   */
  english?: "porter2" | "none";
  /** Drop English stop words (`the`, `of`, `what`, …; Snowball's list). Default true. */
  stopWords?: boolean;
}

/** Bump when any rule below changes the terms of some text. */
export const ANALYZER_VERSION = 4;

/**
 * Longest text ever handed to `Intl.Segmenter` at once. V8's segmenter is quadratic in the input
 * length (measured: 10k chars 23 ms, 100k chars 8.6 s), so long runs are segmented in pieces.
 */
const MAX_SEGMENT = 256;

/**
 * Creates an analyzer. The rules, applied after NFKC normalisation and locale-independent
 * lower-casing:
 *
 * - Scripts written with spaces (Latin, Cyrillic, Greek, Hangul, …): each run of letters, marks and
 *   numbers is one term. `memorySearch.query.hybrid` → `memorysearch`, `query`, `hybrid`;
 *   `snake_case` → `snake`, `case`; `a828e60` and `café` stay whole.
 * - A short word and a number joined by one hyphen (1–4 ASCII letters and digits, either way
 *   round, with no hyphen before or after: `IL-6`, `CD-4`, `3-D`) also give the two joined
 *   (`il6`, `cd4`, `3d`), right after the parts, so `IL6` and `IL-6` find each other. On SciFact
 *   this lifted keyword nDCG@10 from 0.6998 to 0.7042 (even / odd queries 0.7057 → 0.7080 /
 *   0.6940 → 0.7005) with CMRC 2018 and LoCoMo unchanged; joining every hyphenated word gave
 *   0.6991, splitting letters from digits (`il6` → `il`, `6`) cost CMRC and LoCoMo a little.
 * - Han, Hiragana, Katakana (incl. ー): see {@link AnalyzerOptions.cjk}. In bigram mode the terms
 *   come in text order, `c1, c1c2, c2, c2c3, c3`, so the terms of a substring form a contiguous
 *   subsequence of the terms of the text (phrase queries work too).
 * - Thai, Lao, Khmer, Myanmar: ICU dictionary words (`Intl.Segmenter("th")`, whose dictionaries
 *   cover all four scripts).
 * - A run mixing scripts (`用Python写`) is split where the script changes; combining marks stay
 *   with the character before them.
 *
 * @throws EngramError `INVALID_ARGUMENT` for an unknown `cjk` mode.
 */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const mode = options.cjk ?? "bigrams";
  if (mode !== "bigrams" && mode !== "words") {
    throw new EngramError("INVALID_ARGUMENT", `Unknown CJK analysis mode "${String(mode)}".`, {
      hint: 'Use cjk: "bigrams" (the default) or cjk: "words".',
    });
  }
  const english = options.english ?? "porter2";
  if (english !== "porter2" && english !== "none") {
    throw new EngramError("INVALID_ARGUMENT", `Unknown English analysis "${String(english)}".`, {
      hint: 'Use english: "porter2" (the default) or english: "none".',
    });
  }
  const stopWords = options.stopWords ?? true;
  const word = createEnglishNormalizer({ stem: english === "porter2", stopWords });
  // Built on the first Thai/Lao/Khmer/Burmese text: ICU's dictionary segmenter costs ~10 ms of
  // CPU to create, a third of a one-shot CLI search's own work.
  let southeastAsian: Intl.Segmenter | undefined;
  const cjkWords = mode === "words" ? new Intl.Segmenter("zh", { granularity: "word" }) : null;

  const emit = (
    cls: ScriptClass,
    part: string,
    out: string[],
    query: boolean,
    mayStem: ((word: string) => boolean) | undefined,
  ): void => {
    if (cls === CJK) {
      const pieces = query ? withoutQuestionWords(part) : [part];
      for (const piece of pieces) {
        if (cjkWords) pushSegmentedWords(piece, cjkWords, out);
        else pushUnigramsAndBigrams(piece, out);
      }
    } else if (cls === SOUTHEAST_ASIAN) {
      southeastAsian ??= new Intl.Segmenter("th", { granularity: "word" });
      pushSegmentedWords(part, southeastAsian, out);
    } else {
      word(part, out, mayStem);
    }
  };

  /** Terms of `s`, already NFKC-normalised and lower-cased (see `emit` for `mayStem`). */
  const scan = (s: string, query: boolean, mayStem?: (word: string) => boolean): string[] => {
    const out: string[] = [];
    const n = s.length;
    // The last spaced part emitted, for the hyphen joins (see `joinedAfter`).
    let lastStart = -1;
    let lastEnd = -1;
    const part = (partClass: ScriptClass, from: number, to: number): void => {
      emit(partClass, s.slice(from, to), out, query, mayStem);
      if (partClass !== SPACED) return;
      const joined =
        lastEnd === from - 1 ? joinedAfter(s, lastStart, lastEnd, from, to) : undefined;
      if (joined !== undefined) word(joined, out, mayStem);
      lastStart = from;
      lastEnd = to;
    };
    // One pass over the code points: runs of letters/marks/numbers, cut where the script changes.
    // (A regex finding the runs first costs less in a cold process but twice as much warm, and a
    // sync analyses every chunk.)
    let start = -1; // start of the current part, -1 between runs
    let cls: ScriptClass = INHERIT; // the part's class; INHERIT until a base character is seen
    for (let i = 0; i < n; ) {
      const cp = codePointAt(s, i);
      const c = charClass(cp);
      if (c === SEPARATOR) {
        // A part of nothing but combining marks yields no term.
        if (start >= 0 && cls !== INHERIT) part(cls, start, i);
        start = -1;
      } else if (start < 0) {
        start = i;
        cls = c;
      } else if (c !== INHERIT && c !== cls) {
        if (cls !== INHERIT) {
          part(cls, start, i);
          start = i;
        }
        cls = c;
      }
      i += cp > 0xffff ? 2 : 1;
    }
    if (start >= 0 && cls !== INHERIT) part(cls, start, n);
    return out;
  };
  const analyse = (text: string, query: boolean): string[] =>
    scan(text.normalize("NFKC").toLowerCase(), query);

  // Every term is a substring of the normalised text except a stem, which starts with its
  // `stemPrefix`: a text holding none of these needles has none of the wanted terms, and a word
  // starting with none of the stem prefixes cannot stem to one (it is left unstemmed, unseen).
  // When every needle is ASCII letters and digits, only the words starting with one are looked
  // at (one regex finds them): a wanted term can only come from such a word.
  const termsAmong = (wanted: ReadonlySet<string>) => {
    const stems: string[] = [];
    const needles: string[] = [];
    for (const term of wanted) {
      if (english === "porter2" && isAsciiWord(term)) {
        stems.push(stemPrefix(term));
        needles.push(stemPrefix(term));
      } else {
        needles.push(term);
        // A joined term is in the text with its hyphen (`il6` from `il-6`).
        if (JOINED.test(term))
          needles.push(term.replace(/(?<=[a-z])(?=[0-9])|(?<=[0-9])(?=[a-z])/, "-"));
      }
    }
    const mayStem = (word: string) => stems.some((prefix) => word.startsWith(prefix));
    // A joined term (`il6` from `il-6`) is no word of the text: the regex cannot find it.
    const words =
      needles.length > 0 &&
      needles.every((needle) => ASCII_RUN.test(needle) && !JOINED.test(needle))
        ? new RegExp(`(?<![a-z0-9])(?:${needles.join("|")})[a-z0-9]*`, "g")
        : undefined;
    return (text: string): string[] => {
      const s = text.normalize("NFKC").toLowerCase();
      let terms: string[];
      if (words) {
        // An ASCII term is a whole word of ASCII letters and digits: no ASCII letter or digit
        // comes right before or after it (that one would belong to the same word), and in text
        // that is not all ASCII, no letter or mark of a spaced script either (see `standsAlone`).
        const ascii = !NON_ASCII.test(s);
        terms = [];
        words.lastIndex = 0;
        for (const m of s.matchAll(words)) {
          if (ascii || standsAlone(s, m.index, m.index + m[0].length)) {
            emit(SPACED, m[0], terms, false, mayStem);
          }
        }
      } else {
        if (!needles.some((needle) => s.includes(needle))) return [];
        terms = scan(s, false, mayStem);
      }
      return terms.filter((term) => wanted.has(term));
    };
  };

  return {
    id: `engram-analyzer/${ANALYZER_VERSION};cjk=${mode};en=${english}${stopWords ? "+stop" : ""}`,
    terms: (text) => analyse(text, false),
    queryTerms: (text) => {
      const terms = analyse(text, true);
      // A query of nothing but question words still searches for them.
      return terms.length > 0 ? terms : analyse(text, false);
    },
    termsAmong,
  };
}

/** A run of ASCII letters and digits (lower-cased): one script, one term. */
const ASCII_RUN = /^[a-z0-9]+$/;

/** A short word (1–4 ASCII letters) or a number: what a hyphen may join (see `joinedAfter`). */
const SHORT_WORD = /^[a-z]{1,4}$/;
const NUMBER = /^[0-9]+$/;
/** A term {@link joinedAfter} can give. */
const JOINED = /^(?:[a-z]{1,4}[0-9]+|[0-9]+[a-z]{1,4})$/;

/**
 * The joined term of the parts `s[a, aEnd)` and `s[b, bEnd)`, one hyphen apart (`aEnd + 1 === b`):
 * a short word and a number, either way round, with no hyphen before the first nor after the
 * second (`il-6` → `il6`; `anti-il-6` and `il-6-r` give none). Undefined otherwise.
 */
function joinedAfter(
  s: string,
  a: number,
  aEnd: number,
  b: number,
  bEnd: number,
): string | undefined {
  if (s.charCodeAt(aEnd) !== HYPHEN) return undefined;
  if (a > 0 && s.charCodeAt(a - 1) === HYPHEN) return undefined;
  if (bEnd < s.length && s.charCodeAt(bEnd) === HYPHEN) return undefined;
  const first = s.slice(a, aEnd);
  const second = s.slice(b, bEnd);
  const joins =
    (SHORT_WORD.test(first) && NUMBER.test(second)) ||
    (NUMBER.test(first) && SHORT_WORD.test(second));
  return joins ? first + second : undefined;
}
const HYPHEN = 0x2d;
const NON_ASCII = /[^\0-\x7f]/;

/**
 * Whether the ASCII letters and digits `s[start, end)` (with none right before or after) are a
 * part of their run on their own, as the analyzer cuts runs where the script changes: not joined
 * by a combining mark after them, nor by a letter of a spaced script (`é`) next to them; a mark
 * before them belongs to the character it follows, or, leading the run, to them.
 */
function standsAlone(s: string, start: number, end: number): boolean {
  if (end < s.length) {
    const cp = codePointAt(s, end);
    if (cp > 0x7f) {
      const c = charClass(cp);
      if (c === SPACED || c === INHERIT) return false;
    }
  }
  let marks = false;
  for (let i = start; i > 0; ) {
    const cp = codePointBefore(s, i);
    if (cp <= 0x7f) return !marks; // a separator: ASCII letters and digits are not before it
    const c = charClass(cp);
    if (c === SEPARATOR) return !marks;
    if (c !== INHERIT) return c !== SPACED; // Han, Thai, …: the script changes here
    marks = true;
    i -= cp > 0xffff ? 2 : 1;
  }
  return !marks;
}

/** The code point that ends just before index `i` of `s` (a lone surrogate as itself). */
function codePointBefore(s: string, i: number): number {
  const lo = s.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = s.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return (hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
  }
  return lo;
}

/** The terms `analyzer` gives a search query: {@link Analyzer.queryTerms}, else its `terms`. */
export function queryTermsOf(analyzer: Analyzer, query: string): string[] {
  return analyzer.queryTerms ? analyzer.queryTerms(query) : analyzer.terms(query);
}

/** The pieces of a CJK run between its question words (longest match first, left to right). */
function withoutQuestionWords(run: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < run.length; ) {
    let matched = 0;
    for (let length = Math.min(LONGEST_QUESTION_WORD, run.length - i); length > 0; length--) {
      if (QUESTION_SET.has(run.slice(i, i + length))) {
        matched = length;
        break;
      }
    }
    if (matched === 0) {
      i++;
      continue;
    }
    if (i > start) pieces.push(run.slice(start, i));
    i += matched;
    start = i;
  }
  if (start < run.length) pieces.push(start === 0 ? run : run.slice(start));
  return pieces;
}

/** Reads the code point at `i` (a lone surrogate reads as itself). */
function codePointAt(s: string, i: number): number {
  const hi = s.charCodeAt(i);
  if (hi >= 0xd800 && hi <= 0xdbff && i + 1 < s.length) {
    const lo = s.charCodeAt(i + 1);
    if (lo >= 0xdc00 && lo <= 0xdfff) return (hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
  }
  return hi;
}

/** End (exclusive) of the character starting at `i`: one code point plus any marks after it. */
function characterEnd(s: string, i: number): number {
  let j = i + (codePointAt(s, i) > 0xffff ? 2 : 1);
  while (j < s.length) {
    const cp = codePointAt(s, j);
    if (scriptClass(cp) !== INHERIT) break;
    j += cp > 0xffff ? 2 : 1;
  }
  return j;
}

/** Emits `c1, c1c2, c2, c2c3, …, cn` for the characters of a CJK run. */
function pushUnigramsAndBigrams(s: string, out: string[]): void {
  let previous = -1;
  for (let i = 0; i < s.length; ) {
    const end = characterEnd(s, i);
    if (previous >= 0) out.push(s.slice(previous, end));
    out.push(s.slice(i, end));
    previous = i;
    i = end;
  }
}

/**
 * Emits the word-like segments of `s`, never handing the segmenter more than {@link MAX_SEGMENT}
 * UTF-16 units. A long run is cut into windows; the last segment of a window (which the cut may
 * have split) is dropped and segmented again at the start of the next window.
 */
function pushSegmentedWords(s: string, segmenter: Intl.Segmenter, out: string[]): void {
  let pos = 0;
  while (s.length - pos > MAX_SEGMENT) {
    let cut = pos + MAX_SEGMENT;
    const unit = s.charCodeAt(cut);
    if (unit >= 0xdc00 && unit <= 0xdfff) cut--; // never split a surrogate pair
    const window = s.slice(pos, cut);
    let lastIndex = 0;
    let lastSegment: Intl.SegmentData | undefined;
    for (const segment of segmenter.segment(window)) {
      if (lastSegment?.isWordLike) out.push(lastSegment.segment);
      lastSegment = segment;
      lastIndex = segment.index;
    }
    if (lastIndex > 0) {
      pos += lastIndex; // re-segment the last segment with what follows it
    } else {
      if (lastSegment?.isWordLike) out.push(lastSegment.segment); // one huge "word"
      pos = cut;
    }
  }
  const rest = pos === 0 ? s : s.slice(pos);
  for (const segment of segmenter.segment(rest)) {
    if (segment.isWordLike) out.push(segment.segment);
  }
}
