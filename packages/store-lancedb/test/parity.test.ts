import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChunkRecord,
  chunkRecords,
  createAnalyzer,
  type FileRecord,
  type MemoryStore,
  type StoreHit,
} from "@engram/core";
import { createHashingEmbedder } from "@engram/core/testing";
import { createSqliteStore } from "@engram/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLanceDbStore } from "../src/index.js";
import { notes, QUERIES } from "./fixtures/notes.js";

/**
 * The same chunk records, written to SQLite and to LanceDB, must answer the same queries with the
 * same top results. The chunks come from core's real chunker, analyzer (Chinese as unigrams and
 * bigrams) and the hashing embedder, so this is what a user switching stores would see.
 */

const DIMS = 64;
const K = 10;
const analyzer = createAnalyzer();
const embedder = createHashingEmbedder({ dims: DIMS });

let dir = "";
let sqlite: MemoryStore;
let lance: MemoryStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "engram-lancedb-parity-"));
  sqlite = createSqliteStore({ path: join(dir, "index.sqlite") });
  lance = createLanceDbStore({ uri: join(dir, "lancedb") });
  const upserts: Array<{ file: FileRecord; chunks: ChunkRecord[] }> = [];
  for (const [n, note] of notes().entries()) {
    const file: FileRecord = {
      path: note.path,
      source: n % 5 === 0 ? "sessions" : "memory",
      tier: n % 3 === 0 ? "short" : "long",
      hash: `${n}`.padStart(64, "0"),
      mtimeMs: 1_767_225_600_000 + n,
      size: Buffer.byteLength(note.text),
    };
    const chunks = chunkRecords(file, note.text, analyzer, { tokens: 80, overlap: 0 });
    const vectors = await embedder.embedBatch(chunks.map((chunk) => chunk.text));
    chunks.forEach((chunk, i) => {
      chunk.embedding = vectors[i] ?? null;
    });
    upserts.push({ file, chunks });
  }
  for (const store of [sqlite, lance]) {
    await store.init();
    await store.reset({ dims: DIMS });
    // Two writes, as a sync writes in batches.
    const half = Math.floor(upserts.length / 2);
    await store.write({ upserts: upserts.slice(0, half) });
    await store.write({ upserts: upserts.slice(half) });
  }
}, 60_000);

afterAll(async () => {
  await sqlite?.close();
  await lance?.close();
  await rm(dir, { recursive: true, force: true });
});

const ids = (hits: readonly StoreHit[]) => hits.map((hit) => hit.chunk.id);

describe("SQLite and LanceDB agree on the same chunks", () => {
  it("hold the same corpus", async () => {
    const [a, b] = await Promise.all([sqlite.stats(), lance.stats()]);
    expect(b).toMatchObject({ files: a.files, chunks: a.chunks, vectors: a.vectors });
    expect(a.chunks).toBeGreaterThan(150);
  });

  /**
   * Tolerance: the best hit must agree for every query, and the top 10 must share at least 8 ids
   * per query (9 on average). The two BM25s differ only in their IDF: FTS5 uses
   * `ln((N − n + 0.5) / (n + 0.5))`, floored at 1e-6, so a term in half the chunks or more counts
   * for nothing, while LanceDB uses Lucene's `ln(1 + (N − n + 0.5) / (n + 0.5))`, which still gives
   * such terms a little weight; and LanceDB scores in float32. Both move chunks near the cut-off.
   */
  it("full text: the same best hit, and nearly the same top 10, in English and Chinese", async () => {
    let shared = 0;
    for (const query of QUERIES) {
      const terms = analyzer.terms(query);
      const [a, b] = await Promise.all([
        sqlite.searchText(terms, K, undefined),
        lance.searchText(terms, K, undefined),
      ]);
      expect(a.length, query).toBeGreaterThan(0);
      expect(b.length, query).toBe(a.length);
      expect(ids(b)[0], query).toBe(ids(a)[0]);
      const overlap = ids(b).filter((id) => ids(a).includes(id)).length;
      expect(overlap, query).toBeGreaterThanOrEqual(Math.min(8, a.length));
      shared += overlap / a.length;
    }
    expect(shared / QUERIES.length).toBeGreaterThanOrEqual(0.9);
  });

  it("full text with filters: the same best hit", async () => {
    for (const query of QUERIES) {
      const terms = analyzer.terms(query);
      for (const filter of [{ tiers: ["short" as const] }, { pathPrefix: "memory/long-term/" }]) {
        const [a, b] = await Promise.all([
          sqlite.searchText(terms, K, filter),
          lance.searchText(terms, K, filter),
        ]);
        expect(b.length, query).toBe(a.length);
        expect(ids(b)[0], query).toBe(ids(a)[0]);
      }
    }
  });

  /**
   * Tolerance: both search exactly, so the top 10 must be the same ids in the same order with the
   * same scores (to 1e-5), except that two hits whose scores differ by less than 1e-5 may swap:
   * sqlite-vec and LanceDB round the float32 cosine differently, which can reorder a near-tie.
   */
  it("vectors: the same top 10 in the same order", async () => {
    for (const query of QUERIES) {
      const vector = await embedder.embedQuery(query);
      for (const filter of [undefined, { sources: ["sessions"] }, { pathPrefix: "memory/long" }]) {
        const [a, b] = await Promise.all([
          sqlite.searchVector(vector, K, filter),
          lance.searchVector(vector, K, filter),
        ]);
        expect(b.length, query).toBe(a.length);
        a.forEach((hit, i) => {
          const other = b[i] as StoreHit;
          expect(other.score, query).toBeCloseTo(hit.score, 5);
          if (other.chunk.id !== hit.chunk.id) {
            const tied = a.find((h) => h.chunk.id === other.chunk.id);
            expect(
              tied,
              `${query}: ${other.chunk.id} missing from SQLite's top ${K}`,
            ).toBeDefined();
            expect(Math.abs((tied?.score ?? 0) - hit.score), query).toBeLessThan(1e-5);
          }
        });
      }
    }
  });
});
