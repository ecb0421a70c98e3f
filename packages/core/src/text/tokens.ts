/**
 * Token estimates for sizing chunks, without a tokenizer: a CJK character (Han, kana, Hangul, CJK
 * punctuation, full-width forms) is about one token, anything else about a quarter of one.
 */

/** Character counts behind a token estimate. */
export interface CharCounts {
  /** CJK code points, ≈ 1 token each. */
  cjk: number;
  /** Every other code point (a surrogate pair counts once), ≈ 1/4 token each. */
  other: number;
}

/**
 * True when the UTF-16 unit `code` starts a CJK character. A high surrogate stands for its whole
 * astral code point (CJK Extension B and later, the kana supplement); its low surrogate is skipped.
 */
export function isCjkUnit(code: number): boolean {
  if (code < 0x1100) return false;
  if (code <= 0x11ff) return true; // Hangul Jamo
  if (code < 0x2e80) return false;
  if (code <= 0x9fff) {
    // Radicals, CJK symbols and punctuation, kana, Bopomofo, compatibility jamo, enclosed CJK,
    // Extension A, unified ideographs. 0xA000+ is Yi; 0x4DC0–0x4DFF (hexagrams) is close enough.
    return true;
  }
  if (code >= 0xac00 && code <= 0xd7ff) return true; // Hangul syllables, Jamo Extended-B
  if (code >= 0xa960 && code <= 0xa97f) return true; // Hangul Jamo Extended-A
  if (code >= 0xf900 && code <= 0xfaff) return true; // compatibility ideographs
  if (code >= 0xfe30 && code <= 0xfe4f) return true; // CJK compatibility forms
  if (code >= 0xff00 && code <= 0xffef) return true; // half-width and full-width forms
  // High surrogates of U+1B000–U+1B3FF (kana supplement) and U+20000–U+3FFFF (Extensions B–H).
  return code === 0xd82c || (code >= 0xd840 && code <= 0xd8bf);
}

/**
 * Counts the CJK and other code points of `text` (or of `text.slice(start, end)`) in one pass over
 * its char codes.
 */
export function countChars(text: string, start = 0, end: number = text.length): CharCounts {
  let cjk = 0;
  let other = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x1100) {
      other++;
      continue;
    }
    if (isCjkUnit(code)) cjk++;
    else other++;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < end) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return { cjk, other };
}

/** The token estimate for these counts: `cjk + ceil(other / 4)`. */
export function tokensFromCounts(cjk: number, other: number): number {
  return cjk + Math.ceil(other / 4);
}

/**
 * Estimates how many tokens `text` costs an embedding model or an LLM, for sizing chunks: each CJK
 * character (Han, Hiragana, Katakana, Hangul, CJK punctuation and full-width forms) counts as one
 * token, every other character as a quarter of one, i.e. `cjk + Math.ceil(other / 4)`. Astral
 * characters (surrogate pairs) count once.
 *
 * @example estimateTokens("hello world") // 3
 * @example estimateTokens("长期记忆") // 4
 */
export function estimateTokens(text: string): number {
  const { cjk, other } = countChars(text);
  return tokensFromCounts(cjk, other);
}
