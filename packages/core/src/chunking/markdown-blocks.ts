import { createRequire } from "node:module";
import type MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";

/** A top-level ATX or setext heading. */
export interface Heading {
  /** 0-based first line (the text line of a setext heading). */
  line: number;
  /** 0-based last line (the underline of a setext heading). */
  end: number;
  /** 1–6. */
  level: number;
  /** Plain text: no `#`s, no emphasis or code markers. */
  text: string;
}

/** Where a Markdown document's blocks are, by line (all 0-based). */
export interface BlockMap {
  /** 1 at every line where a block (at any nesting level) ends: good places to end a chunk. */
  blockEnd: Uint8Array;
  /** At the first line of a fenced code block: its last line. Elsewhere -1. */
  fenceEnd: Int32Array;
  /** At every line of a fenced code block: its first line. Elsewhere -1. */
  fenceStart: Int32Array;
  /** Top-level headings in document order. Headings in lists or block quotes do not count. */
  headings: Heading[];
}

/**
 * One parser for the process; only its block stage (and inline parsing of headings) is used.
 * Loaded on first use (synchronously, through its CommonJS build): commands that never chunk,
 * like `engram search`, don't pay for loading it.
 */
let parser: MarkdownIt | undefined;
function markdownIt(): MarkdownIt {
  if (!parser) {
    const MarkdownItClass = createRequire(import.meta.url)("markdown-it") as typeof MarkdownIt;
    parser = new MarkdownItClass({ html: true });
  }
  return parser;
}

const INLINE_MARKUP = /[*_`[\]<>!\\&~]/;
const SPACES = /\s+/g;

/**
 * Parses `text` (LF line endings, `lineCount` lines) with markdown-it's block parser and maps its
 * blocks to lines. Fences nested in lists or block quotes are found too.
 */
export function mapBlocks(text: string, lineCount: number): BlockMap {
  const tokens: Token[] = [];
  const md = markdownIt();
  md.block.parse(text, md, {}, tokens);

  const blockEnd = new Uint8Array(lineCount);
  const fenceEnd = new Int32Array(lineCount).fill(-1);
  const fenceStart = new Int32Array(lineCount).fill(-1);
  const headings: Heading[] = [];

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    const map = token.map;
    if (!map || token.nesting === -1) continue;
    const first = map[0];
    const last = Math.min(map[1], lineCount) - 1;
    if (last < first) continue;
    blockEnd[last] = 1;
    if (token.type === "fence") {
      fenceEnd[first] = last;
      fenceStart.fill(first, first, last + 1);
    } else if (token.type === "heading_open" && token.level === 0) {
      const inline = tokens[i + 1];
      headings.push({
        line: first,
        end: last,
        level: Number(token.tag.slice(1)),
        text: inline?.type === "inline" ? plainText(inline.content) : "",
      });
    }
  }
  return { blockEnd, fenceEnd, fenceStart, headings };
}

/** Heading source (`**Plan** for \`v2\``) as plain text (`Plan for v2`). */
function plainText(source: string): string {
  if (!INLINE_MARKUP.test(source)) return source.replace(SPACES, " ").trim();
  let text = "";
  const collect = (tokens: Token[]): void => {
    for (const token of tokens) {
      if (token.type === "text" || token.type === "code_inline") text += token.content;
      else if (token.type === "softbreak" || token.type === "hardbreak") text += " ";
      else if (token.type === "image") text += token.content;
      else if (token.children) collect(token.children);
    }
  };
  for (const token of markdownIt().parseInline(source, {})) collect(token.children ?? []);
  return text.replace(SPACES, " ").trim();
}
