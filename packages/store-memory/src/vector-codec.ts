import { endianness } from "node:os";

/** Snapshots store little-endian floats; only a big-endian host needs to swap bytes. */
const SWAP = endianness() === "BE";

/** A vector as base64 of its little-endian float32 bytes. */
export function encodeVector(vector: Float32Array): string {
  const bytes = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  return (SWAP ? Buffer.from(bytes).swap32() : bytes).toString("base64");
}

/** Bytes as base64. */
export function encodeBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** The bytes in `text` ({@link encodeBytes}'s output, a copy), or undefined when it is not base64. */
export function decodeBytes(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== (text.length / 4) * 3 - padding) return undefined;
  return new Uint8Array(bytes);
}

/**
 * The vector in `text` ({@link encodeVector}'s output), or undefined when it is not one. Node's
 * decoder skips characters outside the alphabet, so a string holding any is caught by the decoded
 * length falling short of what its length promises (cheaper than a regular expression).
 */
export function decodeVector(text: string): Float32Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== (text.length / 4) * 3 - padding || bytes.length % 4 !== 0) return undefined;
  if (SWAP) bytes.swap32();
  // A copy: the decoded bytes may sit at an offset of a shared pool that is not 4-byte aligned.
  const vector = new Float32Array(bytes.length / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}
