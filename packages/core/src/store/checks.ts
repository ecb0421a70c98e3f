import { EngramError } from "../errors.js";
import type { ChunkRecord, FileRecord } from "./records.js";

/** Largest result count a driver needs to honour; "everything" in practice. */
const MAX_LIMIT = 2 ** 31 - 1;

/**
 * Contract checks every store driver applies the same way (the conformance kit tests them), kept
 * here so drivers call them instead of each writing their own.
 */

/**
 * Refuse options a store driver does not know (a typo in `store.options` would otherwise be
 * ignored silently). Throws `CONFIG_INVALID` naming the option and the ones the driver takes.
 */
export function checkStoreOptions(driver: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new EngramError("CONFIG_INVALID", `the ${driver} store has no option "${key}"`, {
        hint: `check store.options in engram.config.json; the ${driver} store takes: ${known.join(", ")}`,
      });
    }
  }
}

/** `k` as a result limit: 0 for anything below 1 or not a number, whole, capped for Infinity. */
export function resultLimit(k: number): number {
  if (!(k >= 1)) return 0;
  return Math.min(Math.floor(k), MAX_LIMIT);
}

/**
 * Refuse an upsert whose chunks do not belong to its file or carry vectors that do not fit the
 * store's vector space (`dims` null: none). Throws `INVALID_ARGUMENT` or `STORE_DIMS_MISMATCH`.
 */
export function assertChunksFit(
  file: FileRecord,
  chunks: readonly ChunkRecord[],
  dims: number | null,
): void {
  for (const chunk of chunks) {
    if (chunk.path !== file.path) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `Chunk ${chunk.id} has path ${chunk.path} but is written with file ${file.path}.`,
        { hint: "Write each chunk in the upsert of the file it comes from." },
      );
    }
    if (chunk.embedding === null) continue;
    if (dims === null) {
      throw new EngramError(
        "STORE_DIMS_MISMATCH",
        `Chunk ${chunk.id} (${chunk.path}) has a ${chunk.embedding.length}-dimensional embedding, but the index has no vector space.`,
        {
          hint: "Call reset({ dims }) with the embedder's dimensions first, or write the chunk with embedding null.",
        },
      );
    }
    if (chunk.embedding.length !== dims) {
      throw new EngramError(
        "STORE_DIMS_MISMATCH",
        `Chunk ${chunk.id} (${chunk.path}) has a ${chunk.embedding.length}-dimensional embedding; the index holds ${dims}-dimensional vectors.`,
        {
          hint: "Vectors of different models never mix: rebuild the index (reset with the new dims) when the model changes.",
        },
      );
    }
  }
}

/** Refuse a query vector whose size is not the store's `dims`. Throws `STORE_DIMS_MISMATCH`. */
export function assertQueryDims(vector: Float32Array, dims: number): void {
  if (vector.length !== dims) {
    throw new EngramError(
      "STORE_DIMS_MISMATCH",
      `The query vector has ${vector.length} dimensions; the index holds ${dims}-dimensional vectors.`,
      {
        hint: "Embed the query with the model the index was built with, or rebuild the index for the new model.",
      },
    );
  }
}

/**
 * Refuse a write holding two chunks with one id (ids are unique across the index; the same path,
 * lines and text give the same id). Throws `INVALID_ARGUMENT`.
 */
export function assertUniqueChunkIds(chunks: Iterable<ChunkRecord>): void {
  const seen = new Set<string>();
  for (const chunk of chunks) {
    if (seen.has(chunk.id)) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `Chunk id ${chunk.id} (${chunk.path}) appears twice in one write.`,
        {
          hint: "Chunk ids must be unique across the index; the same path, lines and text give the same id.",
        },
      );
    }
    seen.add(chunk.id);
  }
}
