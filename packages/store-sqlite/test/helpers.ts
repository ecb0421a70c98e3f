import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MemoryStore, SearchFilter, StoreHit } from "@engram/core/driver";
import { afterEach } from "vitest";
import { createSqliteStore, type SqliteStoreOptions } from "../src/index.js";

/** Temp dirs and stores made by a test file, removed and closed after each test. */
export function useTempStores() {
  const dirs: string[] = [];
  const stores: MemoryStore[] = [];

  afterEach(async () => {
    for (const store of stores.splice(0).reverse()) await store.close();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  return {
    async dir(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), "engram-sqlite-"));
      dirs.push(dir);
      return dir;
    },
    /** A store (closed after the test), not yet initialised. */
    create(options: SqliteStoreOptions): MemoryStore {
      const store = createSqliteStore(options);
      stores.push(store);
      return store;
    },
    /** An initialised store (closed after the test). */
    async open(options: SqliteStoreOptions): Promise<MemoryStore> {
      const store = this.create(options);
      await store.init();
      return store;
    },
  };
}

/** A file with one chunk per `[startLine, terms, embedding?]` (shared with every driver's tests). */
export { storeUpsert as upsert } from "@engram/core/testing";

/**
 * Filters the in-memory copies must answer exactly as SQL does, over corpora of `notes/NN.md` files
 * in three tiers and two sources: labels, an empty list, path prefixes (alone, with labels, one
 * file, none).
 */
export const FILTERS: Array<SearchFilter | undefined> = [
  undefined,
  { tiers: ["long", "mid"] },
  { tiers: ["short"], sources: ["memory"] },
  { sources: ["sessions"] },
  { tiers: [] },
  { pathPrefix: "notes/1" },
  { pathPrefix: "notes/2", tiers: ["mid", "long"] },
  { pathPrefix: "notes/39.md" },
  { pathPrefix: "elsewhere/" },
];

/** What a store answered over many searches: the chunks found (`path:line`) and their scores. */
export interface Answers {
  chunks: string[];
  scores: number[];
}

/** `search`'s answers for every query, every k of 1, 5 and 40 and every filter of {@link FILTERS}. */
export async function answersFor<Q>(
  queries: readonly Q[],
  search: (query: Q, k: number, filter: SearchFilter | undefined) => Promise<StoreHit[]>,
): Promise<Answers> {
  const out: Answers = { chunks: [], scores: [] };
  for (const query of queries) {
    for (const k of [1, 5, 40]) {
      for (const filter of FILTERS) {
        const hits = await search(query, k, filter);
        out.chunks.push(hits.map((h) => `${h.chunk.path}:${h.chunk.startLine}`).join(" "));
        out.scores.push(...hits.map((h) => h.score));
      }
    }
  }
  return out;
}
