import {
  assertChunksFit,
  type ChunkRecord,
  EngramError,
  type FileRecord,
  type Source,
  type StoreBatch,
} from "@engram/core";
import { type ChunkEntry, compareInFile, toEntry } from "./chunk-entry.js";
import type { ChunkIndex } from "./chunk-index.js";

type Upsert = NonNullable<StoreBatch["upserts"]>[number];

/**
 * Files and their chunks, keyed by path and by chunk id, with the search indexes kept in step.
 * Every record is copied in and handed out as a copy.
 */
export class ChunkTable {
  readonly #files = new Map<string, FileRecord>();
  /** Each path's chunks in file order (start line, end line, id). */
  readonly #byPath = new Map<string, ChunkEntry[]>();
  readonly #byId = new Map<string, ChunkEntry>();
  #nextSeq = 0;

  constructor(private readonly indexes: readonly ChunkIndex[]) {}

  get fileCount(): number {
    return this.#files.size;
  }

  get chunkCount(): number {
    return this.#byId.size;
  }

  getFile(path: string): FileRecord | undefined {
    const file = this.#files.get(path);
    return file && { ...file };
  }

  listFiles(source?: Source): FileRecord[] {
    const files: FileRecord[] = [];
    for (const file of this.#files.values()) {
      if (source === undefined || file.source === source) files.push({ ...file });
    }
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The chunks of `path` in file order (the entries themselves: do not hand them out). */
  chunksOf(path: string): readonly ChunkEntry[] {
    return this.#byPath.get(path) ?? [];
  }

  /** Every file record (the records themselves), for a snapshot. */
  fileRecords(): FileRecord[] {
    return [...this.#files.values()];
  }

  /** Every chunk entry, file by file, for a snapshot. */
  entries(): ChunkEntry[] {
    return [...this.#byPath.values()].flat();
  }

  /**
   * Apply `batch` as deletes, then upserts, then touches (when a path is upserted twice, the last
   * upsert wins, as it would in order). Everything is checked first, so a batch that is refused
   * changes nothing: a chunk under another file's upsert (`INVALID_ARGUMENT`), an embedding that
   * does not have `dims` dimensions (`STORE_DIMS_MISMATCH`), or a chunk id that would then be held
   * twice (`INVALID_ARGUMENT`).
   */
  write(batch: StoreBatch, dims: number | null): void {
    for (const { file, chunks } of batch.upserts ?? []) assertChunksFit(file, chunks, dims);
    const upserts = new Map<string, Upsert>();
    for (const upsert of batch.upserts ?? []) upserts.set(upsert.file.path, upsert);
    const deletes = batch.deletes ?? [];
    const replaced = new Set([...deletes, ...upserts.keys()]);
    this.#assertUniqueIds(upserts, replaced);

    for (const path of replaced) this.#removeChunks(path);
    for (const path of deletes) this.#files.delete(path);
    for (const { file, chunks } of upserts.values()) this.put(file, chunks);
    for (const touch of batch.touches ?? []) {
      const file = this.#files.get(touch.path);
      if (file) this.#files.set(file.path, { ...file, mtimeMs: touch.mtimeMs });
    }
  }

  /** Set a file record and add its chunks (the path must hold no chunks yet). */
  put(file: FileRecord, chunks: readonly ChunkRecord[]): void {
    const { path, source, tier, hash, mtimeMs, size } = file;
    this.#files.set(path, { path, source, tier, hash, mtimeMs, size });
    if (chunks.length === 0) return;
    const entries = chunks.map((chunk) => toEntry(chunk, this.#nextSeq++));
    entries.sort(compareInFile);
    this.#byPath.set(path, entries);
    for (const entry of entries) {
      this.#byId.set(entry.chunk.id, entry);
      for (const index of this.indexes) index.add(entry);
    }
  }

  /**
   * Drop every chunk's vector, keeping files, chunks and terms (every index is rebuilt, so the
   * vector index forgets them and the text index keeps answering the same).
   */
  dropVectors(): void {
    const files = this.fileRecords();
    const chunks = new Map(
      [...this.#byPath].map(([path, entries]) => [
        path,
        entries.map((e): ChunkRecord => ({ ...e.chunk, terms: [...e.terms], embedding: null })),
      ]),
    );
    this.clear();
    for (const file of files) this.put(file, chunks.get(file.path) ?? []);
  }

  /** Drop every file and chunk. */
  clear(): void {
    this.#files.clear();
    this.#byPath.clear();
    this.#byId.clear();
    for (const index of this.indexes) index.clear();
  }

  #removeChunks(path: string): void {
    const entries = this.#byPath.get(path);
    if (!entries) return;
    this.#byPath.delete(path);
    for (const entry of entries) {
      this.#byId.delete(entry.chunk.id);
      for (const index of this.indexes) index.remove(entry);
    }
  }

  #assertUniqueIds(upserts: ReadonlyMap<string, Upsert>, replaced: ReadonlySet<string>): void {
    const incoming = new Map<string, string>();
    for (const { file, chunks } of upserts.values()) {
      for (const { id } of chunks) {
        const other = incoming.get(id) ?? this.#byId.get(id)?.chunk.path;
        const stays = other !== undefined && (incoming.has(id) || !replaced.has(other));
        if (stays) {
          throw new EngramError(
            "INVALID_ARGUMENT",
            `Chunk id ${id} of ${file.path} is already used by a chunk of ${other}.`,
            {
              hint: "Chunk ids must be unique across the index; the same path, lines and text give the same id.",
            },
          );
        }
        incoming.set(id, file.path);
      }
    }
  }
}
