import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MemoryStore, SearchFilter } from "@engram/core";
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
