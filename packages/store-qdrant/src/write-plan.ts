import type { ChunkRecord, FileRecord, StoreBatch } from "@engram/core/driver";
import { chunkPointId } from "./ids.js";

/** One file's upsert. */
export type Upsert = { file: FileRecord; chunks: ChunkRecord[] };

/** A {@link StoreBatch} reduced to what to send: the net effect of deletes, upserts and touches. */
export interface WritePlan {
  /** Paths deleted and not upserted again: their chunks and file records go. */
  removed: string[];
  /** The upserts, the last one per path (in first-seen order), touches folded into their files. */
  upserts: Upsert[];
  /** Touches of paths neither removed nor upserted: they change a stored record, if any. */
  touches: FileRecord[];
}

/**
 * Reduce a batch to its net effect, applied as "deletes, then upserts, then touches": a path both
 * deleted and upserted is upserted; a path upserted twice keeps the last upsert; a touch of an
 * upserted path sets that file's modification time; the last touch of a path wins.
 */
export function planWrite(batch: StoreBatch): WritePlan {
  const upserts = new Map<string, Upsert>();
  for (const upsert of batch.upserts ?? []) upserts.set(upsert.file.path, upsert);
  const removed = [...new Set(batch.deletes ?? [])].filter((path) => !upserts.has(path));
  const gone = new Set(removed);
  const touches = new Map<string, FileRecord>();
  for (const touch of batch.touches ?? []) {
    const upsert = upserts.get(touch.path);
    if (upsert)
      upserts.set(touch.path, { ...upsert, file: { ...upsert.file, mtimeMs: touch.mtimeMs } });
    else if (!gone.has(touch.path)) touches.set(touch.path, touch);
  }
  return { removed, upserts: [...upserts.values()], touches: [...touches.values()] };
}

/** One "delete what is left of these files' old versions" request. */
export interface StaleDelete {
  paths: string[];
  /** Point ids of the new chunks of `paths`, which stay. */
  keep: string[];
}

/**
 * Group upserted files into stale-chunk deletes of at most `maxIds` kept ids each (a file with
 * more chunks than that gets a group of its own), so no request body grows with the whole batch.
 */
export function staleDeletes(upserts: readonly Upsert[], maxIds: number): StaleDelete[] {
  const groups: StaleDelete[] = [];
  let current: StaleDelete = { paths: [], keep: [] };
  for (const { file, chunks } of upserts) {
    if (current.paths.length > 0 && current.keep.length + chunks.length > maxIds) {
      groups.push(current);
      current = { paths: [], keep: [] };
    }
    current.paths.push(file.path);
    for (const chunk of chunks) current.keep.push(chunkPointId(chunk.id));
  }
  if (current.paths.length > 0) groups.push(current);
  return groups;
}

/** `items` in consecutive slices of at most `size` (none for an empty list). */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
