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
 */
export function createEnglishNormalizer(options: { stem: boolean; stopWords: boolean }) {
  const cache = new Map<string, string>();
  return (word: string, out: string[]): void => {
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
      stemmed = stem(word) || word;
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(word, stemmed);
    }
    out.push(stemmed);
  };
}
