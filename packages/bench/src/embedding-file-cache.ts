import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Embedder } from "@engram/core";
import { embedderFields } from "./embedder-fields.js";

/** An {@link Embedder} whose vectors persist in a file, with how many it served from there. */
export interface FileCachedEmbedder extends Embedder {
  /** Texts answered from the file so far (documents and queries). */
  readonly hits: number;
  /** Texts the wrapped embedder computed so far. */
  readonly misses: number;
  /** The cache file. */
  readonly file: string;
}

/**
 * Wrap `inner` (same identity) so every vector it computes is appended to one file per model under
 * `dir`, and read back on later runs: a benchmark embeds a corpus with a slow model once, then
 * every run after it (another fusion, another config) costs only the index build. Records are a
 * 32-byte SHA-256 of `query|doc` + text, then `dims` float32s; a torn last record is ignored.
 * `close()` does not close `inner` (the benchmark opens several memories over one model).
 */
export function fileCachedEmbedder(inner: Embedder, dir: string): FileCachedEmbedder {
  mkdirSync(dir, { recursive: true });
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "_");
  const file = join(dir, `${safe(inner.id)}-${safe(inner.model)}-${inner.dims}.f32`);
  const recordBytes = 32 + inner.dims * 4;
  const vectors = new Map<string, Float32Array>();
  const bytes = readIfExists(file);
  for (let at = 0; at + recordBytes <= bytes.length; at += recordBytes) {
    const key = bytes.subarray(at, at + 32).toString("hex");
    const copy = new Uint8Array(bytes.subarray(at + 32, at + recordBytes));
    vectors.set(key, new Float32Array(copy.buffer));
  }
  let hits = 0;
  let misses = 0;
  const keyOf = (kind: "query" | "doc", text: string) =>
    createHash("sha256").update(`${kind}\0${text}`).digest();
  const remember = (key: Buffer, vector: Float32Array) => {
    vectors.set(key.toString("hex"), vector);
    appendFileSync(
      file,
      Buffer.concat([key, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)]),
    );
  };
  return {
    ...embedderFields(inner),
    file,
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    async embedQuery(text, signal) {
      const key = keyOf("query", text);
      const known = vectors.get(key.toString("hex"));
      if (known) {
        hits++;
        return known;
      }
      misses++;
      const vector = await inner.embedQuery(text, signal);
      remember(key, vector);
      return vector;
    },
    async embedBatch(texts, signal) {
      const keys = texts.map((t) => keyOf("doc", t));
      const out: Array<Float32Array | undefined> = keys.map((k) => vectors.get(k.toString("hex")));
      const missing = out.flatMap((v, i) => (v ? [] : [i]));
      hits += texts.length - missing.length;
      if (missing.length) {
        misses += missing.length;
        const computed = await inner.embedBatch(
          missing.map((i) => texts[i] as string),
          signal,
        );
        missing.forEach((i, j) => {
          const vector = computed[j] as Float32Array;
          out[i] = vector;
          remember(keys[i] as Buffer, vector);
        });
      }
      return out as Float32Array[];
    },
  };
}

function readIfExists(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch {
    return Buffer.alloc(0);
  }
}
