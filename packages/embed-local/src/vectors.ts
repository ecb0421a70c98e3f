import { unitVector as toUnit } from "@engram/core/driver";
import { localError, PROVIDER_ID } from "./errors.js";

/**
 * A model output as an L2-normalised `Float32Array`.
 *
 * @throws EmbeddingError `bad_response` when the vector's size is not `dims`, a value is not
 *   finite, or it is all zeros (nothing to normalise).
 */
export function unitVector(values: ArrayLike<number>, dims: number, model: string): Float32Array {
  if (values.length !== dims) {
    throw localError(
      "bad_response",
      `${model} returned a ${values.length}-dimensional vector, expected ${dims}`,
      { hint: "the model file changed since the embedder was created: create it again" },
    );
  }
  return toUnit(
    values,
    PROVIDER_ID,
    0,
    `the model file ${model} may be damaged or not an embedding model`,
  );
}
