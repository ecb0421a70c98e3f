import { CJK, INHERIT, scriptClass } from "./script.js";

/**
 * The term-frequency weight BM25 gives a single Han or kana character (see
 * {@link isCharacterTerm}); every other term weighs 1. A store multiplies the term's count in a
 * chunk by it before BM25's saturation `tf·(k1+1) / (tf + k1·norm)`, so a character that occurs
 * scores `idf·(k1+1)`, within 1 % for any chunk up to 10× the average length, however often it
 * occurs: it counts by presence. Bigrams, words and English stems keep BM25's frequency and length
 * normalisation. The chunk's length (BM25's document length) is its number of terms, unweighted.
 *
 * Why: a Chinese character is not a word. Its repeats in a chunk mostly belong to different
 * words, so its count says little about what the chunk is about, and normalising it by length
 * pushes short chunks that merely name the subject above the one that answers. Keyword nDCG@10 on
 * CMRC 2018 (`engram bench beir`, keyword only): one sentence per document 0.751 → 0.773, windows
 * of ≤ 150 characters 0.872 → 0.885, ≤ 300 0.934 → 0.938, ≤ 700 and whole paragraphs unchanged
 * (0.985, 0.988). Any weight from ~10 up gives the same rankings within 0.001; 1,000 is simply
 * large. English terms are untouched, so SciFact and LoCoMo cannot change.
 */
export const CHARACTER_TERM_WEIGHT = 1000;

/**
 * Whether `term` is a single Han or kana character (a CJK unigram from the analyzer's bigram
 * mode, or a one-character word from its ICU word mode), possibly with combining marks. Such
 * terms count by presence in BM25: see {@link CHARACTER_TERM_WEIGHT}.
 */
export function isCharacterTerm(term: string): boolean {
  const first = term.codePointAt(0);
  if (first === undefined || scriptClass(first) !== CJK) return false;
  for (let i = first > 0xffff ? 2 : 1; i < term.length; ) {
    const cp = term.codePointAt(i) as number;
    if (scriptClass(cp) !== INHERIT) return false;
    i += cp > 0xffff ? 2 : 1;
  }
  return true;
}

/** The term-frequency weight of `term` in BM25: {@link CHARACTER_TERM_WEIGHT} or 1. */
export function termFrequencyWeight(term: string): number {
  return isCharacterTerm(term) ? CHARACTER_TERM_WEIGHT : 1;
}
