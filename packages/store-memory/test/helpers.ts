import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { createInMemoryStore, type InMemoryStore, type MemoryStoreOptions } from "../src/index.js";

/** Temp dirs and stores made by a test file, closed and removed after each test. */
export function useTempStores() {
  const dirs: string[] = [];
  const stores: InMemoryStore[] = [];

  afterEach(async () => {
    for (const store of stores.splice(0).reverse()) await store.close().catch(() => {});
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  return {
    async dir(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), "engram-memory-"));
      dirs.push(dir);
      return dir;
    },
    /** A store (closed after the test), not yet initialised. */
    create(options: MemoryStoreOptions = {}): InMemoryStore {
      const store = createInMemoryStore(options);
      stores.push(store);
      return store;
    },
    /** An initialised store (closed after the test). */
    async open(options: MemoryStoreOptions = {}): Promise<InMemoryStore> {
      const store = this.create(options);
      await store.init();
      return store;
    },
  };
}

/** A file with one chunk per `[startLine, terms, embedding?]` (shared with every driver's tests). */
export { storeUpsert as upsert } from "@engram/core/testing";

/** `path:startLine` of each hit, in order. */
export function locations(hits: ReadonlyArray<{ chunk: { path: string; startLine: number } }>) {
  return hits.map((hit) => `${hit.chunk.path}:${hit.chunk.startLine}`);
}

/** The EngramError `action` rejects with (fails the test when it resolves). */
export async function rejection(action: Promise<unknown>): Promise<{
  code: string;
  message: string;
  hint: string | undefined;
}> {
  try {
    await action;
  } catch (error) {
    return error as { code: string; message: string; hint: string | undefined };
  }
  throw new Error("expected a rejection, but it resolved");
}
