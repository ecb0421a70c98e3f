import type { EngramConfig } from "../config/schema.js";
import type { Embedder } from "../embedding/embedder.js";
import { type EmbeddingIdentity, embeddingIdentity } from "../embedding/identity.js";
import type { MemoryStore } from "../store/store.js";
import type { Analyzer } from "../text/analyzer.js";
import type { Tier } from "../tier.js";

/** Everything indexing needs, resolved once per `Memory`. */
export interface IndexContext {
  /** Absolute, real path of the workspace. */
  workspace: string;
  config: EngramConfig;
  store: MemoryStore;
  analyzer: Analyzer;
  /** Who embeds now; null: nobody in this process (keyword-only index, or vectors owed). */
  embedder: Embedder | null;
  /**
   * The vectors the index must hold, when they are not `embedder`'s: the index keeps this identity
   * and files that change meanwhile owe their vectors (a process without the index's provider
   * never throws its vectors away). Absent: `embedder`'s identity, or none.
   */
  vectors?: EmbeddingIdentity | null;
  /** Tier of an indexed path (from the config's tier map). */
  tierOf: (path: string) => Tier;
}

/** The vectors a sync with `ctx` must leave in the index (see {@link IndexContext.vectors}). */
export function targetVectors(ctx: IndexContext): EmbeddingIdentity | null {
  // A store opened without vector search (e.g. SQLite with `vectors: false`) holds keywords only.
  if (!ctx.store.capabilities.vector) return null;
  if (ctx.vectors !== undefined) return ctx.vectors;
  return ctx.embedder ? embeddingIdentity(ctx.embedder) : null;
}
