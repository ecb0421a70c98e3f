import { EmbeddingError, type EmbeddingFailure, EngramError } from "@engram/core/driver";

/** The provider id: `embedding.provider: "local"`, `ENGRAM_LOCAL_*` variables. */
export const PROVIDER_ID = "local";

/** An {@link EmbeddingError} of the local provider, with a hint that names the fix. */
export function localError(
  kind: EmbeddingFailure,
  message: string,
  options: { hint?: string; cause?: unknown } = {},
): EmbeddingError {
  return new EmbeddingError(kind, PROVIDER_ID, message, options);
}

/** The error every call after `close()` rejects with. */
export function closedError(model: string): EngramError {
  return new EngramError("CLOSED", `${PROVIDER_ID}: the embedder for ${model} is closed`, {
    hint: "create a new embedder (localEmbedder or localProvider.create) after close()",
  });
}

/** An error's message, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
