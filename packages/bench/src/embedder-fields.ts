import type { Embedder } from "@engram/core";

/**
 * The identity and limits of `inner` (id, model, dims, endpoint, batch and token limits), for a
 * wrapper that must look like the embedder it wraps: same index identity, same batching.
 */
export function embedderFields(
  inner: Embedder,
): Pick<Embedder, "id" | "model" | "dims" | "endpoint" | "maxBatchSize" | "maxTokensPerRequest"> {
  return {
    id: inner.id,
    model: inner.model,
    dims: inner.dims,
    ...(inner.endpoint !== undefined ? { endpoint: inner.endpoint } : {}),
    maxBatchSize: inner.maxBatchSize,
    ...(inner.maxTokensPerRequest !== undefined
      ? { maxTokensPerRequest: inner.maxTokensPerRequest }
      : {}),
  };
}
