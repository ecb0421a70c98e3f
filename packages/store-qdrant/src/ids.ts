import { createHash } from "node:crypto";
import type { RecordKind } from "./schema.js";

/** engram's UUID namespace for point ids (a fixed random UUID; never change it). */
const NAMESPACE = Buffer.from("6f1c2e5a9b3d4c7e8a0f1b2c3d4e5f60", "hex");

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of namespace and name) for `name`. Qdrant takes
 * only unsigned integers or UUIDs as point ids, so ids are derived: the same name always gives the
 * same point, which makes every upsert idempotent.
 */
export function uuidFor(name: string): string {
  const bytes = createHash("sha1").update(NAMESPACE).update(name, "utf8").digest();
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The point id of the chunk with engram id `chunkId`. */
export function chunkPointId(chunkId: string): string {
  return uuidFor(`chunk\u0000${chunkId}`);
}

/** The point id of a record of the records collection: a file (by path), a meta key, a cache key. */
export function recordPointId(kind: RecordKind, key: string): string {
  return uuidFor(`${kind}\u0000${key}`);
}
