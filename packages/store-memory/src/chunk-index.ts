import type { ChunkEntry } from "./chunk-entry.js";

/** A search structure kept in step with the store's chunks. */
export interface ChunkIndex {
  add(entry: ChunkEntry): void;
  remove(entry: ChunkEntry): void;
  clear(): void;
}
