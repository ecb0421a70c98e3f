import type { ChunkRecord, FileRecord, Source, StoredChunk } from "@engram/core/driver";
import { type CheckedBatch, EngramError, InMemoryIndex } from "@engram/core/driver";

/**
 * Files and their chunks, by path and by chunk id, with engram's {@link InMemoryIndex} kept in
 * step (it ranks; this keeps the records). Records are copied in and handed out as copies;
 * the index reads exact vectors from here.
 */
export class ChunkTable {
  readonly #files = new Map<string, FileRecord>();
  /** Each path's chunks in file order (start line, end line, id). */
  readonly #byPath = new Map<string, ChunkRecord[]>();
  readonly #byId = new Map<string, ChunkRecord>();
  readonly index = new InMemoryIndex({
    exactVectors: async (ids) => {
      const vectors = new Map<string, Float32Array>();
      for (const id of ids) {
        const embedding = this.#byId.get(id)?.embedding;
        if (embedding) vectors.set(id, embedding);
      }
      return vectors;
    },
  });

  get fileCount(): number {
    return this.#files.size;
  }

  get chunkCount(): number {
    return this.#byId.size;
  }

  /** Chunks with a vector. */
  get vectorCount(): number {
    return this.index.vectors;
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
    return files;
  }

  /** Copies of the chunks of `path`, in file order. */
  chunksOf(path: string): StoredChunk[] {
    return (this.#byPath.get(path) ?? []).map(stored);
  }

  /** Copies of the chunks with these ids (unknown ids are left out). */
  chunksById(ids: readonly string[]): StoredChunk[] {
    return ids.flatMap((id) => {
      const chunk = this.#byId.get(id);
      return chunk ? [stored(chunk)] : [];
    });
  }

  /** Every file record (the records themselves), for a snapshot. */
  fileRecords(): FileRecord[] {
    return [...this.#files.values()];
  }

  /** Every chunk record (the records themselves), file by file, for a snapshot. */
  records(): ChunkRecord[] {
    return [...this.#byPath.values()].flat();
  }

  /**
   * Apply a checked batch. A chunk id already held by a chunk that stays (another path's, not
   * replaced by this batch) refuses the whole batch first (`INVALID_ARGUMENT`), so a refused batch
   * changes nothing.
   */
  write(batch: CheckedBatch): void {
    const removed = new Set(batch.removed);
    for (const { file, chunks } of batch.upserts) {
      for (const { id } of chunks) {
        const other = this.#byId.get(id)?.path;
        if (other !== undefined && !removed.has(other)) {
          throw new EngramError(
            "INVALID_ARGUMENT",
            `Chunk id ${id} of ${file.path} is already used by a chunk of ${other}.`,
            {
              hint: "Chunk ids must be unique across the index; the same path, lines and text give the same id.",
            },
          );
        }
      }
    }
    for (const path of removed) this.#removeChunks(path);
    this.index.removePaths(removed);
    for (const path of batch.deleted) this.#files.delete(path);
    for (const { file, chunks } of batch.upserts) this.put(file, chunks);
    for (const touch of batch.touches) {
      const file = this.#files.get(touch.path);
      if (file) this.#files.set(file.path, { ...file, mtimeMs: touch.mtimeMs });
    }
  }

  /** Set a file record and add its chunks (the path must hold no chunks yet). */
  put(file: FileRecord, chunks: readonly ChunkRecord[]): void {
    const { path, source, tier, hash, mtimeMs, size } = file;
    this.#files.set(path, { path, source, tier, hash, mtimeMs, size });
    if (chunks.length === 0) return;
    const copies = chunks.map(copy).sort(inFileOrder);
    this.#byPath.set(path, copies);
    for (const chunk of copies) this.#byId.set(chunk.id, chunk);
    this.index.add(copies);
  }

  /**
   * Drop every chunk's vector, keeping files, chunks and terms (records are replaced, never
   * changed: a snapshot being saved keeps the ones it took).
   */
  dropVectors(): void {
    for (const [path, chunks] of this.#byPath) {
      const next = chunks.map((chunk) => ({ ...chunk, embedding: null }));
      this.#byPath.set(path, next);
      for (const chunk of next) this.#byId.set(chunk.id, chunk);
    }
    this.index.dropVectors();
  }

  /** Drop every file and chunk. */
  clear(): void {
    this.#files.clear();
    this.#byPath.clear();
    this.#byId.clear();
    this.index.clear();
  }

  #removeChunks(path: string): void {
    const chunks = this.#byPath.get(path);
    if (!chunks) return;
    this.#byPath.delete(path);
    for (const chunk of chunks) this.#byId.delete(chunk.id);
  }
}

/** A private copy of `record` (its vector too). */
function copy(record: ChunkRecord): ChunkRecord {
  return {
    ...record,
    headings: [...record.headings],
    terms: [...record.terms],
    embedding: record.embedding === null ? null : new Float32Array(record.embedding),
  };
}

/** What a caller may have of a chunk: a copy without terms and vector. */
function stored(chunk: ChunkRecord): StoredChunk {
  const { terms: _terms, embedding: _embedding, ...rest } = chunk;
  return { ...rest, headings: [...rest.headings] };
}

function inFileOrder(a: ChunkRecord, b: ChunkRecord): number {
  return (
    a.startLine - b.startLine || a.endLine - b.endLine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
