import { createHash } from "node:crypto";

/**
 * The SHA-256 of `data` as 64 lowercase hex digits. A string is hashed as its UTF-8 bytes, so
 * `sha256Hex(text)` equals the hash of the file bytes that decode to `text`.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
