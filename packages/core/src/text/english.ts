import { stem as porter2 } from "porter2";

/**
 * The Snowball English stop words (snowballstem.org, `algorithms/english/stop.txt`, the list
 * published with the Porter2 stemmer engram uses): pronouns, forms of be/have/do, articles,
 * prepositions, conjunctions and the like, which only add cost and noise to BM25. Its
 * contracted forms (`don't`, `it's`) are left out: the analyzer splits words at apostrophes.
 * Like the list's authors, it keeps `will`, `can`, `may`, `must` and `us` (homonyms of words
 * that matter: a will, a can, May, the US).
 *
 * Why this list rather than Lucene's 33 words (engram's list until analyzer version 3): keyword
 * nDCG@10 on BEIR SciFact 0.6949 → 0.6998 (even queries 0.701 → 0.706, odd 0.689 → 0.694),
 * LoCoMo evidence recall@6 0.812 → 0.827 (questions start with what/when/how, did, have); CMRC
 * 2018 unchanged (0.773); small SciFact workspaces of 20 / 50 / 200 documents 0.943 / 0.921 /
 * 0.872 → 0.942 / 0.925 / 0.876 (`engram-bench beir`, `locomo`, `small`). Dropping the words
 * from queries only (index unchanged) gained less (SciFact 0.698).
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  [
    "i me my myself we our ours ourselves you your yours yourself yourselves",
    "he him his himself she her hers herself it its itself",
    "they them their theirs themselves what which who whom this that these those",
    "am is are was were be been being have has had having do does did doing",
    "would should could ought cannot a an the and but if or because as until while",
    "of at by for with about against between into through during before after above below",
    "to from up down in out on off over under again further then once",
    "here there when where why how all any both each few more most other some such",
    "no nor not only own same so than too very",
  ]
    .join(" ")
    .split(" "),
);

const ASCII_WORD = /^[a-z]+$/;

/**
 * The Porter2 (Snowball English) stem of a lower-case ASCII word, from the `porter2` package: it
 * reads characters where wink-porter2-stemmer (engram's stemmer until analyzer version 3) ran
 * ~40 regexes, which a new process compiled on its first word (~1 ms of a one-shot search) and
 * which cost 15x as much per word warm. The two agree on every word of up to 5 letters and on
 * all but 31 of the 36.6k words of SciFact and LoCoMo: rare words where `porter2` follows the
 * algorithm's `y` rule and wink did not (`byyness`).
 */
export function porter2Stem(word: string): string {
  return porter2(word);
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
