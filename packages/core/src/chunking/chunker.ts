import { estimateTokens } from "../text/tokens.js";
import { frontMatterEnd } from "./front-matter.js";
import { cutLongLine } from "./long-line.js";
import { type Heading, mapBlocks } from "./markdown-blocks.js";
import { type ChunkingOptions, resolveChunkingOptions } from "./options.js";
import { normalizeSource, rangeText, rangeTokens, type SourceLines, scanLines } from "./source.js";

/** A piece of a Markdown file, as the chunker cuts it. */
export interface MarkdownChunk {
  /** 1-based first line of the chunk in the file. */
  startLine: number;
  /** 1-based last line, inclusive. */
  endLine: number;
  /**
   * Heading path in effect at `startLine`, outermost first, as plain text (`["Plans", "Q3"]`). A
   * chunk that starts with a heading includes it. Only top-level headings count (not headings
   * inside lists or block quotes); YAML front matter is never a heading.
   */
  headings: string[];
  /**
   * The file's lines `startLine..endLine` joined with `\n` (line endings normalised, BOM dropped),
   * exactly. One exception: a single line longer than the chunk size is cut into pieces, each its
   * own chunk with `startLine === endLine`, whose `text` is that piece of the line.
   */
  text: string;
  /** `estimateTokens(text)`. */
  tokens: number;
}

/** Where a chunk may end, found by walking forward from its first line. */
interface Reach {
  /** Furthest line ending a block with the chunk within budget, or -1. */
  block: number;
  /** Furthest line (never inside a fence) with the chunk within budget, or -1. */
  line: number;
}

/**
 * Cuts a Markdown file into chunks for indexing.
 *
 * - Blocks (paragraphs, list items, headings, tables, …, found by markdown-it) are packed whole
 *   into chunks of up to `tokens` estimated tokens; a block too big for a chunk is split between
 *   lines. A chunk that would end on a heading ends before it instead, so the heading opens the
 *   next chunk.
 * - Fenced code blocks (at any nesting depth) and YAML front matter are never split; one bigger
 *   than `tokens` becomes a chunk of its own, over size.
 * - Each chunk after the first starts with trailing lines of the chunk before it, at most
 *   `overlap` tokens of them, never starting inside a fence. No overlap is added when the new
 *   content starts with a heading, or when the overlap would leave no room for new content.
 * - A line longer than `tokens` is cut into pieces (see {@link MarkdownChunk.text}).
 * - Lines holding only whitespace never make a chunk of their own and are trimmed from both ends
 *   of every chunk; empty or whitespace-only input gives `[]`.
 *
 * @throws EngramError `INVALID_ARGUMENT` for bad options (see `resolveChunkingOptions`).
 */
export function chunkMarkdown(source: string, options?: Partial<ChunkingOptions>): MarkdownChunk[] {
  const { tokens: limit, overlap } = resolveChunkingOptions(options);
  const src = scanLines(normalizeSource(source));
  const n = src.lines.length;
  const { blank } = src;

  const nextNonBlank = (from: number): number => {
    let i = from;
    while (i < n && blank[i]) i++;
    return i;
  };
  let c = nextNonBlank(0);
  if (c >= n) return [];

  const structure = describe(src);
  const { blockEnd, atomicEnd, atomicStart, headingStart, headingEndToStart } = structure;

  /** Walks forward from `s`, stepping over fences whole, while the chunk stays within `limit`. */
  const reach = (s: number): Reach => {
    let block = -1;
    let line = -1;
    for (let i = s; i < n; ) {
      const unitEnd = atomicEnd[i] as number;
      const end = unitEnd >= 0 ? unitEnd : i;
      if (rangeTokens(src, s, end) > limit) break;
      line = end;
      if (blockEnd[end] || end === n - 1) block = end;
      i = end + 1;
    }
    return { block, line };
  };

  /** First line of the overlap taken from chunk `prevStart..prevEnd`, or -1 for none. */
  const overlapStart = (prevStart: number, prevEnd: number): number => {
    let o = prevEnd + 1;
    while (o - 1 >= prevStart && rangeTokens(src, o - 1, prevEnd) <= overlap) o--;
    while (o <= prevEnd) {
      if (blank[o]) {
        o++;
        continue;
      }
      const fence = atomicStart[o] as number;
      if (fence >= 0 && fence < o) {
        o = (atomicEnd[fence] as number) + 1; // never start inside a fence
        continue;
      }
      break;
    }
    return o <= prevEnd ? o : -1;
  };

  const trimEnd = (end: number): number => {
    let e = end;
    while (blank[e]) e--;
    return e;
  };

  /**
   * Where a chunk of whole blocks ends, new content starting at `first`: before a trailing
   * heading, so the heading opens the next chunk — unless the chunk would hold nothing but
   * headings, which then stay with the start of the (too big) block after them.
   */
  const endOfBlocks = (r: Reach, first: number): number => {
    let e = trimEnd(r.block);
    for (;;) {
      const h = headingEndToStart[e] as number;
      if (h < 0) return e;
      if (h <= first) return r.line > e ? trimEnd(r.line) : e;
      e = trimEnd(h - 1);
    }
  };

  const chunks: MarkdownChunk[] = [];
  const emit = (s: number, e: number, text: string, tokens: number): void => {
    chunks.push({
      startLine: s + 1,
      endLine: e + 1,
      headings: structure.pathAt(s),
      text,
      tokens,
    });
  };

  let prevStart = -1;
  let prevEnd = -1;
  while (c < n) {
    // c: first line of new content (non-blank). s: first line of the chunk, with overlap.
    const o =
      prevEnd >= 0 && overlap > 0 && !headingStart[c] ? overlapStart(prevStart, prevEnd) : -1;
    const withOverlap = o >= 0 ? reach(o) : null;
    let s = c;
    let e = -1;
    // Prefer, in order: overlap + whole blocks, whole blocks, overlap + lines, lines.
    if (withOverlap && withOverlap.block >= c) {
      s = o;
      e = endOfBlocks(withOverlap, c);
    } else {
      const alone = reach(c);
      if (alone.block >= c) {
        e = endOfBlocks(alone, c);
      } else if (withOverlap && withOverlap.line >= c) {
        s = o;
        e = trimEnd(withOverlap.line);
      } else if (alone.line >= c) {
        e = trimEnd(alone.line);
      }
    }

    if (e >= 0) {
      emit(s, e, rangeText(src, s, e), rangeTokens(src, s, e));
    } else if ((atomicEnd[c] as number) >= 0) {
      // A fence (or front matter) bigger than a chunk: kept whole.
      e = trimEnd(atomicEnd[c] as number);
      emit(c, e, rangeText(src, c, e), rangeTokens(src, c, e));
    } else {
      // One line bigger than a chunk: cut into pieces.
      e = c;
      for (const piece of cutLongLine(src.lines[c] as string, limit)) {
        emit(c, c, piece, estimateTokens(piece));
      }
    }
    prevStart = s;
    prevEnd = e;
    c = nextNonBlank(e + 1);
  }
  return chunks;
}

/**
 * The heading path in effect at each 0-based line of `source`, as {@link chunkMarkdown} computes a
 * chunk's {@link MarkdownChunk.headings} (e.g. for another view of the same lines).
 */
export function headingPaths(source: string): (line: number) => string[] {
  return describe(scanLines(normalizeSource(source))).pathAt;
}

/** What the packer needs to know about the document's structure, by 0-based line. */
interface Structure {
  blockEnd: Uint8Array;
  /** At the first line of a fence or of front matter: its last line; elsewhere -1. */
  atomicEnd: Int32Array;
  /** At every line of a fence or of front matter: its first line; elsewhere -1. */
  atomicStart: Int32Array;
  /** 1 at the first line of a top-level heading. */
  headingStart: Uint8Array;
  /** At the last line of a top-level heading: its first line; elsewhere -1. */
  headingEndToStart: Int32Array;
  /** The heading path in effect at a line. */
  pathAt(line: number): string[];
}

function describe(src: SourceLines): Structure {
  const n = src.lines.length;
  const fm = frontMatterEnd(src.lines);
  // Front matter is blanked out for markdown-it, keeping the line numbers.
  const markdown =
    fm < 0
      ? src.text
      : "\n".repeat(fm + 1) +
        src.text.slice((src.offsets[fm] as number) + (src.lines[fm] as string).length + 1);
  const blocks = mapBlocks(markdown, n);
  const atomicEnd = blocks.fenceEnd;
  const atomicStart = blocks.fenceStart;
  if (fm >= 0) {
    atomicEnd[0] = fm;
    atomicStart.fill(0, 0, fm + 1);
    blocks.blockEnd[fm] = 1;
  }

  const headingStart = new Uint8Array(n);
  const headingEndToStart = new Int32Array(n).fill(-1);
  const lines: number[] = [];
  const paths: string[][] = [];
  const stack: Heading[] = [];
  for (const heading of blocks.headings) {
    headingStart[heading.line] = 1;
    headingEndToStart[heading.end] = heading.line;
    while (stack.length > 0 && (stack[stack.length - 1] as Heading).level >= heading.level) {
      stack.pop();
    }
    stack.push(heading);
    lines.push(heading.line);
    paths.push(stack.filter((h) => h.text !== "").map((h) => h.text));
  }

  const pathAt = (line: number): string[] => {
    // Last heading starting at or before `line`.
    let lo = 0;
    let hi = lines.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((lines[mid] as number) <= line) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? [] : [...(paths[lo - 1] as string[])];
  };

  return {
    blockEnd: blocks.blockEnd,
    atomicEnd,
    atomicStart,
    headingStart,
    headingEndToStart,
    pathAt,
  };
}
