import type { Embedder } from "@engram/core";
import { embedderFields } from "./embedder-fields.js";

/** An {@link Embedder} that records the time spent inside its wrapped provider. */
export interface MeteredEmbedder extends Embedder {
  /** Milliseconds spent in the wrapped `embedBatch` so far. */
  readonly embedMs: number;
  /** Texts embedded through `embedBatch` so far. */
  readonly texts: number;
  /** Embed `queries` now, so later `embedQuery` calls for them cost a map lookup. */
  preEmbed(queries: readonly string[]): Promise<void>;
}

/**
 * Wrap `inner` (same identity: id, model, dims) so the benchmark can tell provider time from
 * engram's own time: document embedding is timed, and queries embedded in advance with
 * {@link MeteredEmbedder.preEmbed} are answered from memory, which keeps query embedding out of
 * search latency.
 */
export function meteredEmbedder(inner: Embedder): MeteredEmbedder {
  const ready = new Map<string, Float32Array>();
  let embedMs = 0;
  let texts = 0;
  return {
    ...embedderFields(inner),
    get embedMs() {
      return embedMs;
    },
    get texts() {
      return texts;
    },
    async preEmbed(queries) {
      for (const q of queries) if (!ready.has(q)) ready.set(q, await inner.embedQuery(q));
    },
    async embedQuery(text, signal) {
      return ready.get(text) ?? inner.embedQuery(text, signal);
    },
    async embedBatch(batch, signal) {
      const start = performance.now();
      const vectors = await inner.embedBatch(batch, signal);
      embedMs += performance.now() - start;
      texts += batch.length;
      return vectors;
    },
  };
}
