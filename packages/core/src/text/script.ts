/**
 * Script classes the analyzer needs, decided from a code point's range (no regex per character).
 * Only letters, marks and numbers are ever classified: the analyzer calls this on the characters
 * of `[\p{L}\p{M}\p{N}]+` runs.
 */

/** A combining mark that belongs to the character before it, whatever that character's script. */
export const INHERIT = 0;
/** A script written with spaces between words (Latin, Cyrillic, Greek, Hangul, Arabic, …). */
export const SPACED = 1;
/** Han, Hiragana, Katakana (incl. the prolonged sound mark ー), Bopomofo: bigrams or ICU words. */
export const CJK = 2;
/** Thai, Lao, Khmer, Myanmar: no spaces, alphabetic; ICU dictionary words. */
export const SOUTHEAST_ASIAN = 3;

export type ScriptClass = typeof INHERIT | typeof SPACED | typeof CJK | typeof SOUTHEAST_ASIAN;

/** The script class of code point `cp`. */
export function scriptClass(cp: number): ScriptClass {
  if (cp < 0x0300) return SPACED;
  if (cp <= 0x036f) return INHERIT; // combining diacritical marks
  if (cp < 0x0e00) return SPACED;
  if (cp <= 0x0eff) return SOUTHEAST_ASIAN; // Thai, Lao
  if (cp < 0x1000) return SPACED;
  if (cp <= 0x109f) return SOUTHEAST_ASIAN; // Myanmar
  if (cp < 0x1780) return SPACED; // incl. Hangul Jamo: Korean is written with spaces
  if (cp <= 0x17ff) return SOUTHEAST_ASIAN; // Khmer
  if (cp < 0x19e0) return SPACED;
  if (cp <= 0x19ff) return SOUTHEAST_ASIAN; // Khmer symbols
  if (cp < 0x1ab0) return SPACED;
  if (cp <= 0x1aff) return INHERIT; // combining diacritical marks extended
  if (cp < 0x1dc0) return SPACED;
  if (cp <= 0x1dff) return INHERIT; // combining diacritical marks supplement
  if (cp < 0x20d0) return SPACED;
  if (cp <= 0x20ff) return INHERIT; // combining marks for symbols
  if (cp < 0x2e80) return SPACED;
  if (cp <= 0x9fff) {
    if (cp >= 0x302a && cp <= 0x302f) return INHERIT; // ideographic tone marks
    if (cp === 0x3099 || cp === 0x309a) return INHERIT; // combining kana voiced sound marks
    if (cp >= 0x3130 && cp <= 0x318f) return SPACED; // Hangul compatibility jamo
    if (cp >= 0x4dc0 && cp <= 0x4dff) return SPACED; // Yijing hexagram symbols
    return CJK;
  }
  if (cp < 0xa9e0) return SPACED;
  if (cp <= 0xa9ff) return SOUTHEAST_ASIAN; // Myanmar Extended-B
  if (cp < 0xaa60) return SPACED;
  if (cp <= 0xaa7f) return SOUTHEAST_ASIAN; // Myanmar Extended-A
  if (cp < 0xf900) return SPACED; // incl. Hangul syllables
  if (cp <= 0xfaff) return CJK; // compatibility ideographs
  if (cp < 0xfe00) return SPACED;
  if (cp <= 0xfe0f) return INHERIT; // variation selectors
  if (cp < 0xfe20) return SPACED;
  if (cp <= 0xfe2f) return INHERIT; // combining half marks
  if (cp < 0xff66) return SPACED;
  if (cp <= 0xff9f) return CJK; // half-width katakana (NFKC widens them anyway)
  if (cp < 0x1b000) return SPACED;
  if (cp <= 0x1b2ff) return CJK; // kana supplement and extensions
  if (cp < 0x20000) return SPACED;
  if (cp <= 0x3ffff) return CJK; // CJK Extensions B–H, compatibility supplement
  if (cp >= 0xe0100 && cp <= 0xe01ef) return INHERIT; // variation selectors supplement
  return SPACED;
}
