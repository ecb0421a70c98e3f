import {
  EngramError,
  isEngramError,
  ModelError,
  type ModelFailure,
  providerFailureOf,
} from "@engram/core/driver";
import { PROVIDER_ID } from "./errors.js";

/** A {@link ModelError} of the local provider. */
export function localModelError(
  kind: ModelFailure,
  message: string,
  options: { hint?: string; cause?: unknown } = {},
): ModelError {
  return new ModelError(kind, PROVIDER_ID, message, options);
}

/**
 * The same failure as a {@link ModelError}: the header reader and the shared llama.cpp runtime
 * speak `EmbeddingError`s (they serve the embedder first); the language model reports `MODEL_*`.
 */
export function asModelError(error: unknown): unknown {
  const failure = providerFailureOf(error);
  if (failure?.service !== "embedding" || !isEngramError(error)) return error;
  const message = error.message.replace(new RegExp(`^${PROVIDER_ID}: `), "");
  return localModelError(failure.kind, message.replace(/embedding model/g, "model"), {
    ...(error.hint ? { hint: error.hint.replace(/embedding model/g, "chat model") } : {}),
    cause: error.cause,
  });
}

/** The error every call after `close()` rejects with. */
export function closedModelError(model: string): EngramError {
  return new EngramError("CLOSED", `${PROVIDER_ID}: the language model ${model} is closed`, {
    hint: "create a new one (localLanguageModel or localLanguageModelProvider.create) after close()",
  });
}
