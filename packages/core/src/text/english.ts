import stem from "wink-porter2-stemmer";

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
      stemmed = stem(word) || word;
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
 * `stem`, and need not be stemmed to find out (`test/text/english.test.ts` checks this on
 * words stacking Porter2's suffixes and on its exceptions).
 */
export function stemPrefix(stem: string): string {
  return stem.slice(0, Math.max(1, stem.length - STEM_TAIL));
}
