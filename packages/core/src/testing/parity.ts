import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryStore } from "../driver/contract.js";
import type { SearchFilter, StoreHit } from "../driver/records.js";
import { chunkRecords } from "../sync/chunk-records.js";
import { createAnalyzer } from "../text/analyzer.js";
import { isCharacterTerm } from "../text/character-terms.js";
import { createHashingEmbedder } from "./hashing-embedder.js";
import { notes, PARITY_QUERIES } from "./parity-notes.js";

/** How close two drivers' full-text rankings must be (see {@link describeStoreParity}). */
export interface TextParityTolerance {
  /** Least number of ids the two top 10s must share for every query (default 8). */
  minOverlap?: number;
  /** Least mean share of the top 10 the two agree on over all queries (default 0.9). */
  meanOverlap?: number;
  /**
   * How the candidate counts single Han and kana characters: `"presence"` (default), as core's
   * `CHARACTER_TERM_WEIGHT` asks and the reference does, or `"frequency"`, for a BM25 that cannot
   * weigh them (LanceDB's). With `"frequency"`, a query holding such characters may have a
   * different best hit, which must still be among the reference's top {@link FREQUENCY_BEST_WITHIN}.
   */
  characterTerms?: "presence" | "frequency";
}

/**
 * How far down the reference's list the best hit of a candidate that counts characters by
 * frequency may be, for a query holding characters.
 */
export const FREQUENCY_BEST_WITHIN = 3;

/** Options of {@link describeStoreParity}. */
export interface StoreParityOptions {
  /** The reference store (usually SQLite), new and empty, its data in `dir` (an empty folder). */
  reference(dir: string): Promise<MemoryStore>;
  /** The store under test, new and empty, its data in `dir` (an empty folder). */
  candidate(dir: string): Promise<MemoryStore>;
  /**
   * Full-text tolerance. BM25 implementations differ in their IDF (FTS5 floors the IDF of a term
   * in half the chunks or more at ~0; Lucene-style `ln(1 + …)` keeps a little weight) and in float
   * precision, which moves chunks near the cut-off; the best hit must agree regardless.
   */
  text?: TextParityTolerance;
  /** Decimal digits vector scores must agree to (default 5: float32 cosine rounding). */
  vectorDigits?: number;
}

const DIMS = 64;
const K = 10;

/**
 * Registers a vitest suite proving that the store under test answers the same queries with the
 * same top results as a reference store, on the same bilingual chunks (core's real chunker and
 * analyzer, Chinese as unigrams and bigrams, the hashing embedder). This is what a user switching
 * stores by configuration would see.
 *
 * - full text: the same best hit for every query, in English and Chinese, with and without
 *   filters (for a candidate with `text.characterTerms: "frequency"`, a Chinese query's best hit
 *   among the reference's top 3), and top 10s that share at least `text.minOverlap` ids (mean
 *   `text.meanOverlap`);
 * - vectors: both search exactly, so the same top 10 in the same order with the same scores (to
 *   `vectorDigits`), except that hits whose scores differ by less than that may swap (float32 and
 *   float64 cosines round a near-tie differently), also across the cut-off at the 10th hit.
 *
 * ```ts
 * describeStoreParity("lancedb vs sqlite", {
 *   reference: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite") }),
 *   candidate: async (dir) => createLanceDbStore({ uri: join(dir, "lancedb") }),
 * });
 * ```
 */
export function describeStoreParity(name: string, options: StoreParityOptions): void {
  const minOverlap = options.text?.minOverlap ?? 8;
  const byFrequency = options.text?.characterTerms === "frequency";
  const meanOverlap = options.text?.meanOverlap ?? 0.9;
  const digits = options.vectorDigits ?? 5;
  const analyzer = createAnalyzer();
  const embedder = createHashingEmbedder({ dims: DIMS });
  const ids = (hits: readonly StoreHit[]) => hits.map((hit) => hit.chunk.id);
  /** The candidate's best hit `b` against the reference's list `a` for `query` (its `terms`). */
  const expectSameBest = (
    a: readonly StoreHit[],
    b: readonly StoreHit[],
    query: string,
    terms: readonly string[],
  ) => {
    if (byFrequency && terms.some(isCharacterTerm)) {
      expect(ids(a).slice(0, FREQUENCY_BEST_WITHIN), query).toContain(ids(b)[0]);
    } else {
      expect(ids(b)[0], query).toBe(ids(a)[0]);
    }
  };
  let dir = "";
  let reference: MemoryStore;
  let candidate: MemoryStore;

  describe(`store parity: ${name}`, () => {
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "engram-parity-"));
      await mkdir(join(dir, "reference"));
      await mkdir(join(dir, "candidate"));
      reference = await options.reference(join(dir, "reference"));
      candidate = await options.candidate(join(dir, "candidate"));
      const upserts = await corpus();
      for (const store of [reference, candidate]) {
        await store.init();
        await store.reset({ dims: DIMS });
        // Two writes, as a sync writes in batches.
        const half = Math.floor(upserts.length / 2);
        await store.write({ upserts: upserts.slice(0, half) });
        await store.write({ upserts: upserts.slice(half) });
      }
    }, 120_000);

    afterAll(async () => {
      await reference?.close();
      await candidate?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("hold the same corpus", async () => {
      const [a, b] = await Promise.all([reference.stats(), candidate.stats()]);
      expect(b).toMatchObject({ files: a.files, chunks: a.chunks, vectors: a.vectors });
      expect(a.chunks).toBeGreaterThan(150);
    });

    it("full text: the same best hit, and nearly the same top 10, in English and Chinese", async () => {
      let shared = 0;
      for (const query of PARITY_QUERIES) {
        const terms = analyzer.terms(query);
        const [a, b] = await Promise.all([
          reference.searchText(terms, K, undefined),
          candidate.searchText(terms, K, undefined),
        ]);
        expect(a.length, query).toBeGreaterThan(0);
        expect(b.length, query).toBe(a.length);
        expectSameBest(a, b, query, terms);
        const overlap = ids(b).filter((id) => ids(a).includes(id)).length;
        expect(overlap, query).toBeGreaterThanOrEqual(Math.min(minOverlap, a.length));
        shared += overlap / a.length;
      }
      expect(shared / PARITY_QUERIES.length).toBeGreaterThanOrEqual(meanOverlap);
    });

    it("full text with filters: the same best hit", async () => {
      const filters: SearchFilter[] = [{ tiers: ["short"] }, { pathPrefix: "memory/long-term/" }];
      for (const query of PARITY_QUERIES) {
        const terms = analyzer.terms(query);
        for (const filter of filters) {
          const [a, b] = await Promise.all([
            reference.searchText(terms, K, filter),
            candidate.searchText(terms, K, filter),
          ]);
          expect(b.length, query).toBe(a.length);
          expectSameBest(a, b, query, terms);
        }
      }
    });

    it("vectors: the same top 10 in the same order", async () => {
      const filters: Array<SearchFilter | undefined> = [
        undefined,
        { sources: ["sessions"] },
        { pathPrefix: "memory/long" },
      ];
      for (const query of PARITY_QUERIES) {
        const vector = await embedder.embedQuery(query);
        for (const filter of filters) {
          const [a, b] = await Promise.all([
            reference.searchVector(vector, K, filter),
            candidate.searchVector(vector, K, filter),
          ]);
          expect(b.length, query).toBe(a.length);
          a.forEach((hit, i) => {
            const other = b[i] as StoreHit;
            expect(other.score, query).toBeCloseTo(hit.score, digits);
            if (other.chunk.id !== hit.chunk.id) {
              // A swap is allowed only inside a near-tie: with a hit of (almost) the same score,
              // or, for a chunk the reference cut off, in the tie at the end of the list.
              const tied = a.find((h) => h.chunk.id === other.chunk.id) ?? a.at(-1);
              expect(Math.abs((tied?.score ?? 0) - hit.score), query).toBeLessThan(10 ** -digits);
            }
          });
        }
      }
    });
  });

  async function corpus() {
    return Promise.all(
      notes().map(async (note, n) => {
        const file = {
          path: note.path,
          source: n % 5 === 0 ? "sessions" : "memory",
          tier: n % 3 === 0 ? ("short" as const) : ("long" as const),
          hash: `${n}`.padStart(64, "0"),
          mtimeMs: 1_767_225_600_000 + n,
          size: Buffer.byteLength(note.text),
        };
        const chunks = chunkRecords(file, note.text, analyzer, { tokens: 80, overlap: 0 });
        const vectors = await embedder.embedBatch(chunks.map((chunk) => chunk.text));
        chunks.forEach((chunk, i) => {
          chunk.embedding = vectors[i] ?? null;
        });
        return { file, chunks };
      }),
    );
  }
}
