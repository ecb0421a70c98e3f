import { type ScriptClass, SPACED, scriptClass } from "./script.js";
import { TERM_CHAR_RUNS, TERM_CHAR_UNICODE } from "./term-char-runs.js";

/** Not a letter, mark or number: separates terms. */
export const SEPARATOR = -1;

/** What the analyzer needs to know about a code point: {@link SEPARATOR} or its script class. */
export type CharClass = typeof SEPARATOR | ScriptClass;

const TERM_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
/** Runs of term characters, for the page filler (`TERM_CHAR`'s class). */
const TERM_RUN = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * Classes of BMP code points, filled lazily 256 at a time the first time text touches a page,
 * stored +1 so 0 means "separator".
 */
const bmp = new Uint8Array(0x10000);
const pageReady = new Uint8Array(0x100);
const astral = new Map<number, CharClass>();
const pageCodes = new Uint16Array(0x100);

/**
 * Where term characters start and stop, as ascending [start, end) pairs, when
 * {@link TERM_CHAR_RUNS} was read from this runtime's Unicode version; undefined otherwise (then
 * the regex decides, so the analyzer always agrees with the runtime's `\p{…}`). The table spares
 * each process that meets text beyond Latin-1 (Chinese, an emoji) compiling the `\p` class: a new
 * process's first analysis of a Chinese string took 2.3 ms with the regex, 0.8 ms with the table.
 */
const bounds: Int32Array | undefined = (() => {
  const runtime = (globalThis as { process?: { versions?: { unicode?: string } } }).process
    ?.versions?.unicode;
  if (runtime !== TERM_CHAR_UNICODE) return undefined;
  // Runs alternate separator / term from U+0000, so the odd runs are the terms.
  const pairs = new Int32Array(TERM_CHAR_RUNS.length - (TERM_CHAR_RUNS.length % 2));
  let cp = 0;
  TERM_CHAR_RUNS.forEach((length, i) => {
    if (i % 2 === 1) pairs[i - 1] = cp;
    cp += length;
    if (i % 2 === 1) pairs[i] = cp;
  });
  return pairs;
})();

/** Whether the analyzer classifies by table (`"table"`) or by regex (`"regex"`), for tests. */
export const charClassSource: "table" | "regex" = bounds ? "table" : "regex";

/** Index of the first pair of {@link bounds} that ends after `cp` (pairs.length when none). */
function pairAfter(pairs: Int32Array, cp: number): number {
  let lo = 0;
  let hi = pairs.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((pairs[2 * mid + 1] as number) <= cp) lo = mid + 1;
    else hi = mid;
  }
  return 2 * lo;
}

function classify(cp: number): CharClass {
  if (cp >= 0xd800 && cp <= 0xdfff) return SEPARATOR; // lone surrogate
  if (bounds) {
    const at = pairAfter(bounds, cp);
    return at < bounds.length && (bounds[at] as number) <= cp ? scriptClass(cp) : SEPARATOR;
  }
  return TERM_CHAR.test(String.fromCodePoint(cp)) ? scriptClass(cp) : SEPARATOR;
}

/**
 * The letters and numbers of Basic Latin and Latin-1 (`[\p{L}\p{M}\p{N}]` below U+0100, all of
 * the spaced class), as [first, last] ranges: without {@link bounds} (a runtime of another Unicode
 * version), page 0 is filled from these, so text and queries in ASCII still never compile the `\p`
 * class. `test/text/term-char-runs.test.ts` holds both paths to the regex.
 */
const LATIN1_TERM_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x30, 0x39], // 0-9
  [0x41, 0x5a], // A-Z
  [0x61, 0x7a], // a-z
  [0xaa, 0xaa], // ª
  [0xb2, 0xb3], // ² ³
  [0xb5, 0xb5], // µ
  [0xb9, 0xba], // ¹ º
  [0xbc, 0xbe], // ¼ ½ ¾
  [0xc0, 0xd6], // À-Ö
  [0xd8, 0xf6], // Ø-ö
  [0xf8, 0xff], // ø-ÿ
];

/**
 * Classify a page: one regex scan over the page as a string finds its term characters (the same
 * `[\p{L}\p{M}\p{N}]` test as {@link classify}, without a regex call per code point: a one-shot
 * search touches a page per 256 Han characters it reads), each of which gets its script class.
 * With {@link bounds}, every page comes from the table; otherwise page 0 comes from
 * {@link LATIN1_TERM_RANGES}. Surrogates (pages D8–DF) are all separators.
 */
function fillPage(page: number): void {
  const base = page << 8;
  if (bounds) {
    const end = base + 0x100;
    for (let at = pairAfter(bounds, base); at < bounds.length; at += 2) {
      const from = Math.max(bounds[at] as number, base);
      if (from >= end) break;
      const to = Math.min(bounds[at + 1] as number, end);
      for (let cp = from; cp < to; cp++) bmp[cp] = scriptClass(cp) + 1;
    }
  } else if (page === 0) {
    for (const [first, last] of LATIN1_TERM_RANGES) bmp.fill(SPACED + 1, first, last + 1);
  } else if (base < 0xd800 || base > 0xdfff) {
    for (let i = 0; i < 0x100; i++) pageCodes[i] = base + i;
    const chars = String.fromCharCode.apply(null, pageCodes as unknown as number[]);
    TERM_RUN.lastIndex = 0;
    for (let m = TERM_RUN.exec(chars); m !== null; m = TERM_RUN.exec(chars)) {
      const end = m.index + m[0].length;
      for (let i = m.index; i < end; i++) bmp[base + i] = scriptClass(base + i) + 1;
    }
  }
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
