import { EmbeddingError, unitVector } from "@engram/core/driver";
import { GEMINI_PROVIDER_ID } from "./settings.js";

const HINT =
  "the endpoint did not answer like batchEmbedContents: check baseUrl, and dims or outputDimensionality";

/**
 * Check a `batchEmbedContents` answer (`embeddings: [{ values: number[] }, …]`) and return its
 * vectors L2-normalised, in order. gemini-embedding-001 normalises only full-size (3072) vectors,
 * so shorter ones must be normalised here.
 *
 * @throws EmbeddingError `bad_response` when the count is not `count`, a vector's size is not
 *   `dims`, a value is not a finite number, or a vector is all zeros.
 */
export function unitVectors(embeddings: unknown, count: number, dims: number): Float32Array[] {
  if (!Array.isArray(embeddings)) {
    throw badResponse(`the answer has no embeddings list (expected ${count})`);
  }
  if (embeddings.length !== count) {
    throw badResponse(`the answer holds ${embeddings.length} embeddings for ${count} texts`);
  }
  return embeddings.map((embedding: unknown, i) => {
    const values = (embedding as { values?: unknown } | null)?.values;
    if (!Array.isArray(values)) throw badResponse(`embedding ${i} has no values`);
    if (values.length !== dims) {
      throw badResponse(`embedding ${i} has ${values.length} values, expected ${dims}`);
    }
    return unitVector(values, GEMINI_PROVIDER_ID, i, HINT);
  });
}

function badResponse(problem: string): EmbeddingError {
  return new EmbeddingError("bad_response", GEMINI_PROVIDER_ID, problem, { hint: HINT });
}
