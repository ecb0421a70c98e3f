import { createHash } from "node:crypto";
import type { ChunkRecord, FileRecord, StoreBatch } from "@engram/core/driver";

/**
 * Synthetic but realistic benchmark data: chunks with Zipf-distributed terms (a few common words,
 * a long tail) and 384-d embeddings drawn around 200 topic centres (clustered like real embeddings,
 * where uniform random vectors would flatter exact search and cripple ANN indices).
 */

/** A seeded generator (Park–Miller), so every run and every store sees the same data. */
export function random(seed: number): () => number {
  let state = seed % 2147483647;
  if (state <= 0) state += 2147483646;
  return () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
}

/** Embedding dimensions used throughout the benchmarks (all-MiniLM-L6-v2, bge-small). */
export const DIMS = 384;
const TOPICS = 200;
const VOCABULARY = 20_000;
const CHUNKS_PER_FILE = 10;

/** Generates chunks, query terms and query vectors from one seed. */
export class Corpus {
  readonly #next: () => number;
  readonly #centres: Float32Array[];

  constructor(seed = 42) {
    this.#next = random(seed);
    this.#centres = Array.from({ length: TOPICS }, () => this.#gaussianVector());
  }

  /** A unit vector near a random topic centre. */
  vector(): Float32Array {
    const centre = this.#centres[Math.floor(this.#next() * TOPICS)] as Float32Array;
    const v = new Float32Array(DIMS);
    for (let i = 0; i < DIMS; i++) v[i] = (centre[i] ?? 0) + 0.6 * this.#gaussian();
    return normalise(v);
  }

  /** `count` terms, Zipf-like: term `w0` is the most common. */
  terms(count: number): string[] {
    return Array.from({ length: count }, () => `w${Math.floor(this.#next() ** 3 * VOCABULARY)}`);
  }

  /** Terms of a query: mid-frequency words, as real queries are. */
  queryTerms(): string[] {
    return Array.from({ length: 5 }, () => `w${Math.floor(this.#next() * 2000)}`);
  }

  /** Upserts for chunks `from` until `to` (10 chunks per file), with or without vectors. */
  batch(from: number, to: number, vectors: boolean): NonNullable<StoreBatch["upserts"]> {
    const upserts: NonNullable<StoreBatch["upserts"]> = [];
    for (let start = from; start < to; start += CHUNKS_PER_FILE) {
      const file = fileRecord(Math.floor(start / CHUNKS_PER_FILE));
      const chunks: ChunkRecord[] = [];
      for (let i = start; i < Math.min(to, start + CHUNKS_PER_FILE); i++) {
        const terms = this.terms(30 + Math.floor(this.#next() * 90));
        const text = terms.join(" ");
        const line = 1 + (i - start) * 10;
        chunks.push({
          id: `c${i}`,
          path: file.path,
          source: file.source,
          tier: file.tier,
          startLine: line,
          endLine: line + 9,
          headings: [],
          text,
          hash: sha256(text),
          terms,
          embedding: vectors ? this.vector() : null,
        });
      }
      upserts.push({ file, chunks });
    }
    return upserts;
  }

  #gaussianVector(): Float32Array {
    return Float32Array.from({ length: DIMS }, () => this.#gaussian());
  }

  #gaussian(): number {
    return Math.sqrt(-2 * Math.log(this.#next() + 1e-12)) * Math.cos(2 * Math.PI * this.#next());
  }
}

function fileRecord(n: number): FileRecord {
  const path = `memory/notes-${String(n).padStart(6, "0")}.md`;
  return {
    path,
    source: "memory",
    tier: n % 3 === 0 ? "short" : "long",
    hash: sha256(path),
    mtimeMs: 1_767_225_600_000,
    size: 4096,
  };
}

function normalise(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Median of `values` (ms), to one decimal. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const value =
    sorted.length % 2
      ? (sorted[Math.floor(mid)] ?? 0)
      : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return Math.round(value * 10) / 10;
}

/** Milliseconds `fn` takes. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
