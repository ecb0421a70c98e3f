import MarkdownIt from "markdown-it";
import { expect } from "vitest";
import type { ChunkingOptions, MarkdownChunk } from "../../src/chunking/index.js";
import { estimateTokens } from "../../src/text/index.js";

const md = new MarkdownIt({ html: true });

/** The file's lines as the chunker numbers them (BOM dropped, any line ending). */
export function sourceLines(source: string): string[] {
  return source.replace(/^\ufeff/, "").split(/\r\n|\r|\n/);
}

/** 0-based inclusive line ranges of every fenced code block, at any nesting depth. */
export function fenceRanges(source: string): Array<[number, number]> {
  const lines = sourceLines(source);
  const ranges: Array<[number, number]> = [];
  for (const token of md.parse(lines.join("\n"), {})) {
    if (token.type === "fence" && token.map) {
      ranges.push([token.map[0], Math.min(token.map[1], lines.length) - 1]);
    }
  }
  return ranges;
}

/** True for a chunk holding one piece of a line too long for a chunk. */
export function isPiece(chunk: MarkdownChunk, lines: string[]): boolean {
  return chunk.startLine === chunk.endLine && chunk.text !== lines[chunk.startLine - 1];
}

/** Checks everything that must hold for any input. */
export function expectValidChunks(
  source: string,
  chunks: MarkdownChunk[],
  options: ChunkingOptions,
): void {
  const lines = sourceLines(source);
  const fences = fenceRanges(source);
  const covered = new Uint8Array(lines.length);
  let previous: MarkdownChunk | undefined;
  for (const chunk of chunks) {
    expect(chunk.startLine).toBeGreaterThanOrEqual(1);
    expect(chunk.endLine).toBeGreaterThanOrEqual(chunk.startLine);
    expect(chunk.endLine).toBeLessThanOrEqual(lines.length);
    expect(chunk.tokens).toBe(estimateTokens(chunk.text));
    expect(chunk.text.trim()).not.toBe("");
    const piece = isPiece(chunk, lines);
    if (piece) {
      expect(lines[chunk.startLine - 1]).toContain(chunk.text);
      expect(chunk.tokens).toBeLessThanOrEqual(options.tokens);
      expect(estimateTokens(lines[chunk.startLine - 1] as string)).toBeGreaterThan(options.tokens);
    } else {
      const exact = lines.slice(chunk.startLine - 1, chunk.endLine);
      expect(chunk.text).toBe(exact.join("\n"));
      expect(exact[0]?.trim()).not.toBe("");
      expect(exact[exact.length - 1]?.trim()).not.toBe("");
    }
    for (let i = chunk.startLine - 1; i < chunk.endLine; i++) covered[i] = 1;

    // Never split inside a fence.
    const start = chunk.startLine - 1;
    const end = chunk.endLine - 1;
    for (const [a, b] of fences) {
      if (start > a && start <= b)
        throw new Error(`chunk ${start + 1}-${end + 1} starts in fence ${a + 1}-${b + 1}`);
      if (end >= a && end < b && !piece) {
        // Only trailing blank lines of an unclosed fence may be left out.
        expect(lines.slice(end + 1, b + 1).every((l) => l.trim() === "")).toBe(true);
      }
    }

    // Over size only when the chunk is exactly one fence (or front matter).
    if (chunk.tokens > options.tokens && !piece) {
      const isFence = fences.some(([a, b]) => a === start && b >= end);
      const isFrontMatter = start === 0 && lines[0]?.trimEnd() === "---";
      expect(isFence || isFrontMatter).toBe(true);
    }

    if (previous) {
      if (!piece && !isPiece(previous, lines)) {
        expect(chunk.endLine).toBeGreaterThan(previous.endLine); // progress
        if (chunk.startLine <= previous.endLine) {
          const shared = lines.slice(chunk.startLine - 1, previous.endLine).join("\n");
          expect(estimateTokens(shared)).toBeLessThanOrEqual(options.overlap);
        }
      } else {
        expect(chunk.startLine).toBeGreaterThanOrEqual(previous.startLine);
      }
    }
    previous = chunk;
  }
  // Every non-blank line is in some chunk.
  lines.forEach((line, i) => {
    if (line.trim() !== "" && !covered[i]) throw new Error(`line ${i + 1} is in no chunk: ${line}`);
  });
}
