import { type ScriptClass, scriptClass } from "./script.js";

/** Not a letter, mark or number: separates terms. */
export const SEPARATOR = -1;

/** What the analyzer needs to know about a code point: {@link SEPARATOR} or its script class. */
export type CharClass = typeof SEPARATOR | ScriptClass;

const TERM_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
/**
 * Runs of term characters. One regex serves {@link forEachTermRun} and the page filler (a `\p`
 * class costs ~0.5 ms to compile, a one-shot search's budget is a few ms).
 */
const TERM_RUN = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * Classes of BMP code points, filled lazily 256 at a time the first time text touches a page,
 * stored +1 so 0 means "separator".
 */
const bmp = new Uint8Array(0x10000);
const pageReady = new Uint8Array(0x100);
const astral = new Map<number, CharClass>();
const pageCodes = new Uint16Array(0x100);

function classify(cp: number): CharClass {
  if (cp >= 0xd800 && cp <= 0xdfff) return SEPARATOR; // lone surrogate
  return TERM_CHAR.test(String.fromCodePoint(cp)) ? scriptClass(cp) : SEPARATOR;
}

/**
 * Classify a page: one regex scan over the page as a string finds its term characters (the same
 * `[\p{L}\p{M}\p{N}]` test as {@link classify}, without a regex call per code point: a one-shot
 * search touches a page per 256 Han characters it reads), each of which gets its script class.
 * Surrogates (pages D8–DF) are all separators.
 */
function fillPage(page: number): void {
  const base = page << 8;
  if (base < 0xd800 || base > 0xdfff) {
    for (let i = 0; i < 0x100; i++) pageCodes[i] = base + i;
    const chars = String.fromCharCode.apply(null, pageCodes as unknown as number[]);
    // A page is filled while forEachTermRun walks a text with the same regex.
    const resume = TERM_RUN.lastIndex;
    TERM_RUN.lastIndex = 0;
    for (let m = TERM_RUN.exec(chars); m !== null; m = TERM_RUN.exec(chars)) {
      const end = m.index + m[0].length;
      for (let i = m.index; i < end; i++) bmp[base + i] = scriptClass(base + i) + 1;
    }
    TERM_RUN.lastIndex = resume;
  }
  pageReady[page] = 1;
}

/** The term characters of ASCII: in text that is all ASCII, runs of these are the runs. */
const ASCII_TERM_RUN = /[A-Za-z0-9]+/g;
const NON_ASCII = /[^\0-\x7f]/;

/**
 * Calls `run` with each maximal run of term characters of `s` (what lies between separators),
 * in order: a native scan, so the analyzer spends no JavaScript on the spaces and punctuation
 * (and all-ASCII text, most English, never needs the Unicode classes compiled).
 */
export function forEachTermRun(s: string, run: (text: string) => void): void {
  const runs = NON_ASCII.test(s) ? TERM_RUN : ASCII_TERM_RUN;
  runs.lastIndex = 0;
  for (let m = runs.exec(s); m !== null; m = runs.exec(s)) {
    const end = m.index + m[0].length;
    run(m[0]);
    runs.lastIndex = end;
  }
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
