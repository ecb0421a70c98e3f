import { EmbeddingError, unitVector } from "@engram/core/driver";
import { PROVIDER_ID } from "./settings.js";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The vectors of an embeddings response body (`{"object":"list","data":[{"index":0,
 * "embedding":…}],…}`), in input order (by each item's `index`), L2-normalised.
 *
 * An `embedding` may be a base64 string of little-endian float32s (what engram asks for) or a
 * number array (servers that ignore `encoding_format`).
 *
 * @param expected how many inputs the request had.
 * @param dims the vector size to insist on; undefined accepts any size that all vectors share.
 * @throws EmbeddingError `bad_response` for anything else: no `data`, a wrong count, a missing or
 *   repeated index, a wrong size, a non-finite number, an all-zero vector.
 */
export function readEmbeddingList(
  body: unknown,
  expected: number,
  dims: number | undefined,
): Float32Array[] {
  const data = (body as { data?: unknown } | null | undefined)?.data;
  if (typeof body !== "object" || body === null || !Array.isArray(data)) {
    throw badResponse(`the response has no "data" list${describeBody(body)}`);
  }
  if (data.length !== expected) {
    throw badResponse(`returned ${data.length} embeddings for ${expected} inputs`);
  }
  const out: Float32Array[] = new Array(expected);
  let size = dims;
  data.forEach((item: unknown, position) => {
    const index = (item as { index?: unknown } | null)?.index ?? position;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected) {
      throw badResponse(`embedding ${position} has an invalid index ${JSON.stringify(index)}`);
    }
    if (out[index]) throw badResponse(`index ${index} appears twice`);
    const vector = decodeEmbedding((item as { embedding?: unknown } | null)?.embedding, index);
    size ??= vector.length;
    if (vector.length !== size) {
      throw badResponse(
        `embedding ${index} has ${vector.length} dimensions, expected ${size}`,
        "set dims (or dimensions) in embedding.providers.openai to the model's vector size",
      );
    }
    out[index] = unitVector(vector, PROVIDER_ID, index);
  });
  return out;
}

/** One `embedding` value (base64 of little-endian float32s, or numbers) as floats. */
export function decodeEmbedding(value: unknown, index: number): Float32Array {
  if (typeof value === "string") {
    if (!BASE64.test(value)) throw badResponse(`embedding ${index} is not base64`);
    const bytes = Buffer.from(value, "base64");
    if (bytes.length === 0 || bytes.length % 4 !== 0) {
      throw badResponse(`embedding ${index} decodes to ${bytes.length} bytes, not float32s`);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const vector = new Float32Array(bytes.length / 4);
    for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
    return vector;
  }
  if (Array.isArray(value) && value.length > 0) {
    const vector = new Float32Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const x: unknown = value[i];
      if (typeof x !== "number") throw badResponse(`embedding ${index} holds a non-number`);
      vector[i] = x;
    }
    return vector;
  }
  throw badResponse(
    `embedding ${index} is ${value === undefined ? "missing" : "empty or not a vector"}`,
  );
}

function describeBody(body: unknown): string {
  if (typeof body === "string") return ` (got text: ${JSON.stringify(body.slice(0, 80))})`;
  if (body === null || body === undefined) return " (got an empty body)";
  return "";
}

function badResponse(problem: string, hint?: string): EmbeddingError {
  return new EmbeddingError("bad_response", PROVIDER_ID, problem, hint ? { hint } : {});
}
