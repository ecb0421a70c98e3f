import type { StoredChunk } from "../driver/records.js";
import type { SlotChunk } from "./chunk-slots.js";

/** A chunk as a scan or a write gives it: whole when it carries its headings, text and hash. */
type GivenChunk = SlotChunk & Partial<Pick<StoredChunk, "headings" | "text" | "hash">>;

/**
 * The chunks a copy of the index keeps beside it for a store whose reads by id are slow
 * (`MemoryStore.memoryIndexKeepsChunks`): by id, with each path's ids, so that a write replaces a
 * file's chunks without a pass over all of them.
 */
export class KeptChunks {
  readonly #byId = new Map<string, StoredChunk>();
  readonly #byPath = new Map<string, string[]>();

  /**
   * Keep these chunks (a scanned page, or a write's). Only whole chunks are kept, as stored
   * chunks (no terms, no vector); one that lacks its text, headings or hash is read from the store
   * when a search needs it.
   */
  add(chunks: Iterable<GivenChunk>): void {
    for (const chunk of chunks) {
      const stored = wholeChunk(chunk);
      if (!stored) continue;
      if (!this.#byId.has(stored.id)) {
        const ids = this.#byPath.get(stored.path);
        if (ids) ids.push(stored.id);
        else this.#byPath.set(stored.path, [stored.id]);
      }
      this.#byId.set(stored.id, stored);
    }
  }

  /** Forget every chunk of these paths. */
  removePaths(paths: Iterable<string>): void {
    for (const path of paths) {
      for (const id of this.#byPath.get(path) ?? []) this.#byId.delete(id);
      this.#byPath.delete(path);
    }
  }

  /** The kept chunk with this id, if any. */
  get(id: string): StoredChunk | undefined {
    return this.#byId.get(id);
  }
}

/** `chunk` as a stored chunk of its own (a new object: the page's terms and vector are not kept). */
function wholeChunk(chunk: GivenChunk): StoredChunk | undefined {
  const { id, path, source, tier, startLine, endLine, headings, text, hash } = chunk;
  if (headings === undefined || text === undefined || hash === undefined) return undefined;
  // A scan's labels are the stored chunk's own (the slot type only widens them to strings).
  return { id, path, source, tier, startLine, endLine, headings, text, hash } as StoredChunk;
}
