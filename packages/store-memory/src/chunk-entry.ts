import type { ChunkRecord, StoredChunk } from "@engram/core";

/**
 * One chunk as the store holds it: the stored chunk, its analysed terms and its vector (copies of
 * what was written, never mutated afterwards), and the numbers the searches need.
 */
export interface ChunkEntry {
  /** Internal document number, unique while the store is open (wink's document id). */
  readonly seq: number;
  readonly chunk: StoredChunk;
  readonly terms: readonly string[];
  readonly vector: Float32Array | null;
  /** L2 norm of `vector` (0 without one). */
  readonly norm: number;
}

/** A private copy of `record` as an entry numbered `seq`. */
export function toEntry(record: ChunkRecord, seq: number): ChunkEntry {
  const vector = record.embedding === null ? null : new Float32Array(record.embedding);
  return {
    seq,
    chunk: {
      id: record.id,
      path: record.path,
      source: record.source,
      tier: record.tier,
      startLine: record.startLine,
      endLine: record.endLine,
      headings: [...record.headings],
      text: record.text,
      hash: record.hash,
    },
    terms: [...record.terms],
    vector,
    norm: vector === null ? 0 : l2Norm(vector),
  };
}

/** A copy of the entry's chunk for a caller (who may mutate it). */
export function copyChunk(entry: ChunkEntry): StoredChunk {
  return { ...entry.chunk, headings: [...entry.chunk.headings] };
}

/** Chunk order within a file: start line, then end line, then id. */
export function compareInFile(a: ChunkEntry, b: ChunkEntry): number {
  const x = a.chunk;
  const y = b.chunk;
  return (
    x.startLine - y.startLine || x.endLine - y.endLine || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)
  );
}

/** Euclidean length of `vector`, accumulated in double precision. */
export function l2Norm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number;
    sum += x * x;
  }
  return Math.sqrt(sum);
}
