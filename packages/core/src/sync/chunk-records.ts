import { type ChunkingOptions, chunkIds, chunkMarkdown } from "../chunking/index.js";
import type { ChunkRecord, Source } from "../store/records.js";
import type { Analyzer } from "../text/analyzer.js";
import { sha256Hex } from "../text/hash.js";
import type { Tier } from "../tier.js";

/** Chunk sizes: the default, and optionally a smaller one for log files (see {@link isLogFile}). */
export type ChunkingConfig = ChunkingOptions & { logs?: ChunkingOptions };

const DAILY_LOG_NAME = /(?:^|\/)\d{4}-\d{2}-\d{2}\.md$/;

/**
 * True for files made of short entries: session transcripts and daily logs (`YYYY-MM-DD.md` in
 * any folder, so a log keeps its chunks, and its cached vectors, when it is archived).
 */
export function isLogFile(file: { path: string; source: Source }): boolean {
  return file.source === "sessions" || DAILY_LOG_NAME.test(file.path);
}

/** Chunk a file's text and analyse each chunk: the records a store indexes (embeddings unset). */
export function chunkRecords(
  file: { path: string; source: Source; tier: Tier },
  text: string,
  analyzer: Analyzer,
  chunking: ChunkingConfig,
): ChunkRecord[] {
  const size = chunking.logs && isLogFile(file) ? chunking.logs : chunking;
  const chunks = chunkMarkdown(text, { tokens: size.tokens, overlap: size.overlap });
  const ids = chunkIds(file.path, chunks);
  return chunks.map((chunk, i) => ({
    id: ids[i] as string,
    path: file.path,
    source: file.source,
    tier: file.tier,
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    headings: chunk.headings,
    text: chunk.text,
    hash: sha256Hex(chunk.text),
    terms: termsWithHeadings(chunk.text, chunk.headings, analyzer),
    embedding: null,
  }));
}

/**
 * A chunk's terms, plus the terms of its heading path when the chunk does not show those headings
 * itself: the second chunk of a long section is still about the section's title.
 */
export function termsWithHeadings(
  text: string,
  headings: readonly string[],
  analyzer: Analyzer,
): string[] {
  const terms = analyzer.terms(text);
  const missing = headings.filter((h) => !text.includes(h));
  return missing.length ? [...analyzer.terms(missing.join("\n")), ...terms] : terms;
}
