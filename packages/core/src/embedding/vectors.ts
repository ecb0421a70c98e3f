import { EngramError } from "../errors.js";
import type { Embedder } from "./embedder.js";
import { EmbeddingError } from "./errors.js";

/**
 * `values` as an L2-normalised `Float32Array` (cosine search and the cache expect unit vectors).
 * Every driver's responses go through it.
 *
 * @param provider the provider id, for the error.
 * @param index the vector's position in the response, for the error.
 * @throws EmbeddingError `bad_response` when a value is not a finite number or the vector is all zeros.
 */
export function unitVector(
  values: ArrayLike<unknown>,
  provider: string,
  index: number,
  hint?: string,
): Float32Array {
  const vector = new Float32Array(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (typeof x !== "number" || !Number.isFinite(x)) {
      throw bad(
        provider,
        `embedding ${index} holds ${JSON.stringify(x)}, not a finite number`,
        hint,
      );
    }
    vector[i] = x;
    sum += x * x;
  }
  if (sum === 0) throw bad(provider, `embedding ${index} is all zeros`, hint);
  const norm = Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}

function bad(provider: string, problem: string, hint: string | undefined): EmbeddingError {
  return new EmbeddingError("bad_response", provider, problem, hint ? { hint } : {});
}

/**
 * Check what a provider returned before anything uses it: one vector per text, each of the
 * embedder's `dims`, every value a finite number. Core runs it on every call of
 * every provider (built-in or an integrator's), so a NaN never reaches a store or a ranking.
 *
 * @throws EngramError `EMBEDDING_FAILED` when the count or the size is wrong (a setup problem);
 *   EmbeddingError `bad_response` (retryable) when a value is NaN or infinite.
 */
export function checkVectors(
  out: readonly Float32Array[],
  expected: number,
  embedder: Pick<Embedder, "id" | "model" | "dims">,
): void {
  const wrong =
    out.length !== expected
      ? `returned ${out.length} vectors for ${expected} texts`
      : out.some((v) => v.length !== embedder.dims)
        ? `returned a vector whose size is not ${embedder.dims}`
        : undefined;
  if (wrong) {
    throw new EngramError(
      "EMBEDDING_FAILED",
      `embedding provider ${embedder.id}/${embedder.model} ${wrong}`,
      { hint: "check the provider's model and dimensions settings" },
    );
  }
  out.forEach((vector, index) => {
    for (const x of vector) {
      if (!Number.isFinite(x)) {
        throw bad(embedder.id, `embedding ${index} holds ${x}, not a finite number`, undefined);
      }
    }
  });
}
