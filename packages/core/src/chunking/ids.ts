import { sha256Hex } from "../text/hash.js";
import type { MarkdownChunk } from "./chunker.js";

/**
 * A chunk's stable id: the first 32 hex digits of the SHA-256 of its path, line range and text
 * (and `ordinal`, when it is given and not 0). The same inputs always give the same id; any change
 * to the text gives another.
 *
 * `ordinal` tells apart chunks that share a path, line range and possibly text: the pieces of a
 * single line too long for one chunk. {@link chunkIds} sets it for you.
 */
export function chunkId(
  path: string,
  chunk: Pick<MarkdownChunk, "startLine" | "endLine" | "text">,
  ordinal?: number,
): string {
  let key = `${path}\0${chunk.startLine}\0${chunk.endLine}\0${chunk.text}`;
  if (ordinal) key += `\0${ordinal}`;
  return sha256Hex(key).slice(0, 32);
}

/**
 * Ids for the chunks of one file, in order, all distinct: each chunk's {@link chunkId} with, as
 * ordinal, how many earlier chunks have the same line range (0 for every chunk but the second and
 * later pieces of a cut line). Prefer this over calling {@link chunkId} yourself.
 */
export function chunkIds(
  path: string,
  chunks: readonly Pick<MarkdownChunk, "startLine" | "endLine" | "text">[],
): string[] {
  const seen = new Map<string, number>();
  return chunks.map((chunk) => {
    const range = `${chunk.startLine}:${chunk.endLine}`;
    const ordinal = seen.get(range) ?? 0;
    seen.set(range, ordinal + 1);
    return chunkId(path, chunk, ordinal);
  });
}
