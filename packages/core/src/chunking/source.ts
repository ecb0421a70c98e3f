import { countChars } from "../text/tokens.js";

/** A Markdown file split into lines, with what the chunker needs to know about each line. */
export interface SourceLines {
  /** The text with the BOM dropped and every line ending turned into `\n`. */
  text: string;
  /** Lines of {@link text} (0-based here; chunks report them 1-based). */
  lines: string[];
  /** Offset in {@link text} where each line starts. */
  offsets: Int32Array;
  /** True for lines holding only whitespace. */
  blank: Uint8Array;
  /** Prefix sums: CJK code points in lines `0..i-1` (length `lines.length + 1`). */
  cjkBefore: Float64Array;
  /** Prefix sums: other code points in lines `0..i-1`, newlines excluded. */
  otherBefore: Float64Array;
}

const LINE_BREAK = /\r\n?/g;
const NON_BLANK = /\S/;

/** Drops a leading BOM and normalises CRLF and CR line endings to LF. */
export function normalizeSource(source: string): string {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  return text.includes("\r") ? text.replace(LINE_BREAK, "\n") : text;
}

/** Splits normalised text into lines and counts each line's characters once. */
export function scanLines(text: string): SourceLines {
  const lines = text.split("\n");
  const n = lines.length;
  const offsets = new Int32Array(n);
  const blank = new Uint8Array(n);
  const cjkBefore = new Float64Array(n + 1);
  const otherBefore = new Float64Array(n + 1);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const line = lines[i] as string;
    offsets[i] = offset;
    offset += line.length + 1;
    const { cjk, other } = countChars(line);
    cjkBefore[i + 1] = (cjkBefore[i] as number) + cjk;
    otherBefore[i + 1] = (otherBefore[i] as number) + other;
    blank[i] = NON_BLANK.test(line) ? 0 : 1;
  }
  return { text, lines, offsets, blank, cjkBefore, otherBefore };
}

/**
 * `estimateTokens` of lines `start..end` (0-based, inclusive) joined with `\n`, in O(1): the
 * `end - start` newlines count as other characters.
 */
export function rangeTokens(src: SourceLines, start: number, end: number): number {
  const cjk = (src.cjkBefore[end + 1] as number) - (src.cjkBefore[start] as number);
  const other = (src.otherBefore[end + 1] as number) - (src.otherBefore[start] as number);
  return cjk + Math.ceil((other + end - start) / 4);
}

/** The exact text of lines `start..end` (0-based, inclusive) joined with `\n`. */
export function rangeText(src: SourceLines, start: number, end: number): string {
  const from = src.offsets[start] as number;
  const to = (src.offsets[end] as number) + (src.lines[end] as string).length;
  return src.text.slice(from, to);
}
