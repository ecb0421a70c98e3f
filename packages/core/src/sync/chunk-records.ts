import { type ChunkingOptions, chunkIds, chunkMarkdown } from "../chunking/index.js";
import type { ChunkRecord, Source } from "../store/records.js";
import type { Analyzer } from "../text/analyzer.js";
import { sha256Hex } from "../text/hash.js";
import type { Tier } from "../tier.js";

/** Chunk a file's text and analyse each chunk: the records a store indexes (embeddings unset). */
export function chunkRecords(
  file: { path: string; source: Source; tier: Tier },
  text: string,
  analyzer: Analyzer,
  chunking: ChunkingOptions,
): ChunkRecord[] {
  const chunks = chunkMarkdown(text, chunking);
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
    terms: analyzer.terms(chunk.text),
    embedding: null,
  }));
}
