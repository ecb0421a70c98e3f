import { createHash } from "node:crypto";
import { expect, type TestContext } from "vitest";
import type {
  ChunkRecord,
  FileRecord,
  MemoryStore,
  StoreCapabilities,
  StoredChunk,
  StoreHit,
} from "../driver/index.js";
import { type EngramErrorCode, isEngramError } from "../errors.js";
import type { Tier } from "../tier.js";

/** What each conformance test gets: stores living in the test's own temp dir. */
export interface Harness {
  /** A new, empty, initialised store in this test's temp dir. Closed after the test. */
  store(): Promise<MemoryStore>;
  /** The store persisted in this test's dir, opened again and initialised (persistence tests). */
  reopen(): Promise<MemoryStore>;
}

/** Skip the running test (visibly, with a reason) unless the store has `capability`. */
export function requireCapability(
  context: TestContext,
  store: MemoryStore,
  capability: keyof StoreCapabilities,
  name: string,
): void {
  if (!store.capabilities[capability]) {
    context.skip(`${name} does not declare capabilities.${capability}`);
  }
}

/** A file record with plausible values; `overrides` win. */
export function fileRecord(
  path: string,
  overrides: Partial<Omit<FileRecord, "path">> = {},
): FileRecord {
  return {
    path,
    source: "memory",
    tier: "long",
    hash: sha256(`file:${path}`),
    mtimeMs: 1_767_225_600_000,
    size: 1024,
    ...overrides,
  };
}

/** Options of {@link chunkRecord}. */
export interface ChunkOptions {
  endLine?: number;
  headings?: string[];
  /** Default: the terms joined by spaces. */
  text?: string;
  /** Plain numbers for readability; null (default) for no vector. */
  embedding?: readonly number[] | null;
}

/**
 * A chunk of `file` starting at `startLine` whose analysed terms are `terms` (written by hand: the
 * kit never depends on an analyzer). Id and hash are derived, so equal inputs give equal records.
 */
export function chunkRecord(
  file: FileRecord,
  startLine: number,
  terms: string[],
  options: ChunkOptions = {},
): ChunkRecord {
  const endLine = options.endLine ?? startLine + 2;
  const text = options.text ?? terms.join(" ");
  return {
    id: sha256(`chunk:${file.path}:${startLine}:${endLine}:${text}`).slice(0, 24),
    path: file.path,
    source: file.source,
    tier: file.tier,
    startLine,
    endLine,
    headings: options.headings ?? [],
    text,
    hash: sha256(text),
    terms,
    embedding: options.embedding ? Float32Array.from(options.embedding) : null,
  };
}

/** A file record and chunks of it: `[startLine, terms, options?]` per chunk. */
export function fileWithChunks(
  path: string,
  chunks: Array<[startLine: number, terms: string[], options?: ChunkOptions]>,
  overrides: Partial<Omit<FileRecord, "path">> & { tier?: Tier } = {},
): { file: FileRecord; chunks: ChunkRecord[] } {
  const file = fileRecord(path, overrides);
  return {
    file,
    chunks: chunks.map(([line, terms, options]) => chunkRecord(file, line, terms, options)),
  };
}

/** What a store gives back for a written chunk: everything but terms and embedding. */
export function stored(chunk: ChunkRecord): StoredChunk {
  const { terms: _terms, embedding: _embedding, ...rest } = chunk;
  return rest;
}

/** `path:startLine` of each hit, in order: readable in failure messages. */
export function locations(hits: readonly StoreHit[]): string[] {
  return hits.map((hit) => `${hit.chunk.path}:${hit.chunk.startLine}`);
}

/** Assert `action` rejects with an EngramError of `code`. */
export async function expectEngramError(
  action: Promise<unknown>,
  code: EngramErrorCode,
): Promise<void> {
  let caught: unknown;
  try {
    await action;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected an EngramError ${code}, but it resolved`).toBeDefined();
  expect(isEngramError(caught), `expected an EngramError ${code}, got: ${String(caught)}`).toBe(
    true,
  );
  expect((caught as { code: string }).code).toBe(code);
}

/** Assert hits come best first. */
export function expectDescending(hits: readonly StoreHit[]): void {
  for (let i = 1; i < hits.length; i++) {
    expect(hits[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(hits[i]?.score ?? 0);
  }
}

/** `items[index]`, failing the test when it is missing (keeps `noUncheckedIndexedAccess` quiet). */
export function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`expected an item at index ${index} of ${items.length}`);
  return item;
}

/** Sort file records by path (listFiles' order is unspecified). */
export function byPath<T extends { path: string }>(records: readonly T[]): T[] {
  return [...records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
