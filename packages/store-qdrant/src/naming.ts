import { resolve } from "node:path";
import { EngramError, sha256Hex } from "@engram/core/driver";

/** Qdrant collection names this store accepts: safe in a URL path on every Qdrant version. */
const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,200}$/;

/** Suffix of the collection holding file records, meta and the embedding cache. */
export const RECORDS_SUFFIX = "_records";

/**
 * The default collection of a workspace: `engram_` and the first 8 hex digits of the SHA-256 of
 * its absolute path. Stable for a workspace folder, distinct between folders on one server (moving
 * the folder starts a new collection, rebuilt from the files by the next sync).
 */
export function defaultCollectionName(workspace: string): string {
  return `engram_${sha256Hex(resolve(workspace)).slice(0, 8)}`;
}

/** The collection holding a store's file records, meta and cache. */
export function recordsCollectionName(collection: string): string {
  return `${collection}${RECORDS_SUFFIX}`;
}

/**
 * Refuse a collection name Qdrant may reject or that would need escaping in a URL.
 * @throws EngramError `CONFIG_INVALID`.
 */
export function assertCollectionName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !COLLECTION_NAME.test(name)) {
    throw new EngramError(
      "CONFIG_INVALID",
      `Qdrant collection name ${JSON.stringify(name) ?? String(name)} is not valid: use 1 to 200 letters, digits, "_" or "-".`,
      {
        hint: "Fix store.options.collection in engram.config.json, or leave it out to use engram_<hash of the workspace path>.",
      },
    );
  }
}
