import type { ChunkRecord, FileRecord, StoreBatch } from "../driver/records.js";

/**
 * A store upsert for driver tests: a file with one chunk per `[startLine, terms, embedding?]`.
 * Chunk ids are `path:startLine`, hashes are fixed, and each chunk's text is its terms joined, so
 * a test reads like the index it builds.
 */
export function storeUpsert(
  path: string,
  chunks: Array<[startLine: number, terms: string[], embedding?: number[]]>,
  overrides: Partial<FileRecord> = {},
): NonNullable<StoreBatch["upserts"]>[number] {
  const file: FileRecord = {
    path,
    source: "memory",
    tier: "long",
    hash: "0".repeat(64),
    mtimeMs: 1000,
    size: 10,
    ...overrides,
  };
  return {
    file,
    chunks: chunks.map(
      ([startLine, terms, embedding]): ChunkRecord => ({
        id: `${path}:${startLine}`,
        path,
        source: file.source,
        tier: file.tier,
        startLine,
        endLine: startLine,
        headings: [],
        text: terms.join(" "),
        hash: "1".repeat(64),
        terms,
        embedding: embedding ? Float32Array.from(embedding) : null,
      }),
    ),
  };
}
