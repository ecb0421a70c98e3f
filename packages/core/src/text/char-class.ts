import { type ScriptClass, scriptClass } from "./script.js";

/** Not a letter, mark or number: separates terms. */
export const SEPARATOR = -1;

/** What the analyzer needs to know about a code point: {@link SEPARATOR} or its script class. */
export type CharClass = typeof SEPARATOR | ScriptClass;

const TERM_CHAR = /^[\p{L}\p{M}\p{N}]$/u;

/**
 * Classes of BMP code points, filled lazily 256 at a time (a page is classified with one regex
 * test per code point the first time text touches it), stored +1 so 0 means "separator".
 */
const bmp = new Uint8Array(0x10000);
const pageReady = new Uint8Array(0x100);
const astral = new Map<number, CharClass>();

function classify(cp: number): CharClass {
  if (cp >= 0xd800 && cp <= 0xdfff) return SEPARATOR; // lone surrogate
  return TERM_CHAR.test(String.fromCodePoint(cp)) ? scriptClass(cp) : SEPARATOR;
}

function fillPage(page: number): void {
  const base = page << 8;
  for (let cp = base; cp < base + 0x100; cp++) bmp[cp] = classify(cp) + 1;
  pageReady[page] = 1;
}

/**
 * The class of code point `cp`: {@link SEPARATOR} unless it is a Unicode letter, mark or number
 * (`[\p{L}\p{M}\p{N}]`), else its script class. Amortised O(1): a table lookup.
 */
export function charClass(cp: number): CharClass {
  if (cp < 0x10000) {
    if (pageReady[cp >> 8] === 0) fillPage(cp >> 8);
    return ((bmp[cp] as number) - 1) as CharClass;
  }
  let cls = astral.get(cp);
  if (cls === undefined) {
    cls = classify(cp);
    if (astral.size < 65_536) astral.set(cp, cls);
  }
  return cls;
}
