import { createRequire } from "node:module";
import { stem as porter2 } from "porter2";

/**
 * Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`): words so common that
 * they only add cost and noise to BM25.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "but",
  "by",
  "for",
  "if",
  "in",
  "into",
  "is",
  "it",
  "no",
  "not",
  "of",
  "on",
  "or",
  "such",
  "that",
  "the",
  "their",
  "then",
  "there",
  "these",
  "they",
  "this",
  "to",
  "was",
  "will",
  "with",
]);

const ASCII_WORD = /^[a-z]+$/;

/**
 * Words whose wink-porter2-stemmer stem differs from the `porter2` package's outside the `y`
 * rule (see {@link winkMarksY}): a lone leading vowel before `-ed`/`-ing` (wink keeps an `e`:
 * `oed` → `oe`), and two words wink predates or misses (`howe`, `sses`).
 */
const WINK_QUIRKS = /^(?:[aeiou](?:ed|ing)(?:ly)?s?|sses|howe)$/;

let wink: ((word: string) => string) | undefined;

/**
 * The Porter2 stem of a lower-case ASCII word, exactly as wink-porter2-stemmer gives it (the
 * stems every index holds were made by it). The `porter2` package computes it: it reads
 * characters where wink runs ~40 regexes, which a new process compiles on its first word (~1 ms
 * of a one-shot search's few) and which cost 15x as much per word warm. The words where the two
 * differ ({@link WINK_QUIRKS}, and a `y` that wink leaves a vowel) are rare and still go to wink,
 * loaded then. `test/text/english.test.ts` holds the two to the same stems on ~700k words.
 */
export function porter2Stem(word: string): string {
  if (WINK_QUIRKS.test(word) || !winkMarksY(word)) {
    wink ??= createRequire(import.meta.url)("wink-porter2-stemmer") as (word: string) => string;
    return wink(word);
  }
  return porter2(word);
}

/**
 * Whether wink treats every `y` of `word` as `porter2` does. Porter2 makes a `y` a consonant
 * when it starts the word or follows a vowel (a `y` left a vowel counts as one); wink only does
 * so for a leading `y` and for the first `y` after `a e i o u`.
 */
function winkMarksY(word: string): boolean {
  let winkMarked = false; // wink's one mark after a vowel is spent
  let previousVowel = false; // the character before is a vowel, as porter2 sees it
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c === Y) {
      const porter2Marks: boolean = i === 0 || previousVowel;
      const after = i > 0 ? word.charCodeAt(i - 1) : 0;
      const winkMarks = i === 0 || (!winkMarked && isAeiou(after));
      if (i > 0 && winkMarks) winkMarked = true;
      if (porter2Marks !== winkMarks) return false;
      previousVowel = !porter2Marks; // an unmarked y is a vowel
    } else {
      previousVowel = isAeiou(c);
    }
  }
  return true;
}

const Y = 0x79;

function isAeiou(c: number): boolean {
  return c === 0x61 || c === 0x65 || c === 0x69 || c === 0x6f || c === 0x75;
}
const MAX_CACHED = 100_000;

/**
 * English term normalisation: Porter2 (Snowball English) stems for all-ASCII-letter words
 * (`memories` → `memori`, `deployed` → `deploy`), optionally dropping stop words. Words with digits
 * or other scripts pass through unchanged. Stems are memoised: text repeats words a lot.
 *
 * `mayStem`, when given, is asked before a word is stemmed: a word it refuses yields no term (the
 * caller only wants terms that word cannot stem to, see {@link stemPrefix}).
 */
export function createEnglishNormalizer(options: { stem: boolean; stopWords: boolean }) {
  const cache = new Map<string, string>();
  return (word: string, out: string[], mayStem?: (word: string) => boolean): void => {
    if (!ASCII_WORD.test(word)) {
      out.push(word);
      return;
    }
    if (options.stopWords && ENGLISH_STOP_WORDS.has(word)) return;
    if (!options.stem || word.length < 3) {
      out.push(word);
      return;
    }
    let stemmed = cache.get(word);
    if (stemmed === undefined) {
      if (mayStem && !mayStem(word)) return;
      stemmed = porter2Stem(word) || word;
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(word, stemmed);
    }
    out.push(stemmed);
  };
}

/** True for a term a Porter2 stem can be: ASCII letters only. */
export function isAsciiWord(term: string): boolean {
  return ASCII_WORD.test(term);
}

/**
 * How many trailing characters of a stem may differ from the word it was stemmed from. Porter2
 * only ever rewrites the end of a word, never lengthens it, and each rewrite's replacement agrees
 * with the text it replaces except in its last one or two characters (`ational` → `ate`,
 * `biliti` → `ble`, `ing` → `e`, `y` → `i`; the exceptions `skies` → `sky`, `dying` → `die`
 * too): so a word and its stem agree everywhere but in the stem's last 2 characters. No rule
 * rewrites the first letter (the regions R1/R2 begin after a vowel and a consonant; the other
 * rules need a letter before the suffix).
 */
const STEM_TAIL = 2;

/**
 * A prefix every word stemming to `stem` starts with: all but its last {@link STEM_TAIL}
 * characters, at least the first one. So a word that does not start with it cannot stem to
 * `stem`, and need not be stemmed to find out (`test/text/terms-among.test.ts` checks this on
 * words stacking Porter2's suffixes and on its exceptions).
 */
export function stemPrefix(stem: string): string {
  return stem.slice(0, Math.max(1, stem.length - STEM_TAIL));
}
