import { resolve } from "node:path";
import { sha256Hex } from "@engram/core/driver";
import { v5 as uuidV5 } from "uuid";
import type { RecordKind } from "./collections.js";

/**
 * The names and keys this store derives: point ids, path prefix keys, collection names. Each is a
 * pure function of its input and stored in collections, so none may ever change.
 */

/** engram's UUID namespace for point ids (a fixed random UUID; never change it). */
const NAMESPACE = "6f1c2e5a-9b3d-4c7e-8a0f-1b2c3d4e5f60";

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of namespace and UTF-8 name) for `name`. Qdrant
 * takes only unsigned integers or UUIDs as point ids, so ids are derived: the same name always
 * gives the same point, which makes every upsert idempotent.
 */
export function uuidFor(name: string): string {
  return uuidV5(name, NAMESPACE);
}

/** The point id of the chunk with engram id `chunkId`. */
export function chunkPointId(chunkId: string): string {
  return uuidFor(`chunk\u0000${chunkId}`);
}

/** The point id of a record of the records collection: a file (by path), a meta key, a cache key. */
export function recordPointId(kind: RecordKind, key: string): string {
  return uuidFor(`${kind}\u0000${key}`);
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/**
 * Qdrant cannot match a keyword by prefix, so every chunk carries the keys of all its path's
 * prefixes and a prefix filter is one exact match on that array (payload-indexed). A key is a
 * 52-bit hash (FNV-1a 64 over the UTF-16 code units, top 52 bits: a safe integer) rather than the
 * prefix itself, so the payload grows with the path's length, not its square. Prefixes are taken by
 * UTF-16 code unit, as `String.prototype.startsWith` compares. Two prefixes share a key with odds of
 * about 2⁻⁵²; results are checked with `startsWith` as well, so a collision can only cost a hit.
 */
export function pathPrefixKeys(path: string): number[] {
  const keys: number[] = [];
  let hash = FNV_OFFSET;
  for (let i = 0; i < path.length; i++) {
    hash = fnvStep(hash, path.charCodeAt(i));
    keys.push(Number(hash >> 12n));
  }
  return [...new Set(keys)];
}

/** The key of one prefix, equal to the matching entry of {@link pathPrefixKeys}. */
export function prefixKey(prefix: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < prefix.length; i++) hash = fnvStep(hash, prefix.charCodeAt(i));
  return Number(hash >> 12n);
}

function fnvStep(hash: bigint, codeUnit: number): bigint {
  const low = ((hash ^ BigInt(codeUnit & 0xff)) * FNV_PRIME) & MASK_64;
  return ((low ^ BigInt(codeUnit >>> 8)) * FNV_PRIME) & MASK_64;
}

/**
 * The default collection of a workspace: `engram_` and the first 8 hex digits of the SHA-256 of
 * its absolute path. Stable for a workspace folder, distinct between folders on one server (moving
 * the folder starts a new collection, rebuilt from the files by the next sync).
 */
export function defaultCollectionName(workspace: string): string {
  return `engram_${sha256Hex(resolve(workspace)).slice(0, 8)}`;
}

/** The collection holding a store's file records, meta and key-value map. */
export function recordsCollectionName(collection: string): string {
  return `${collection}_records`;
}
