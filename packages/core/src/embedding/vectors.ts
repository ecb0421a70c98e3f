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
