import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChunkRecord, FileRecord, StoreBatch } from "@engram/core";
import { afterEach } from "vitest";
import { createMemoryStore, type InMemoryStore, type MemoryStoreOptions } from "../src/index.js";

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
      const store = createMemoryStore(options);
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

/** A file with one chunk per `[startLine, terms, embedding?]`; chunk ids are `path:startLine`. */
export function upsert(
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
