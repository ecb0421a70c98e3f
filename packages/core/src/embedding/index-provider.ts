import type { EmbedderChain } from "./chain.js";
import { describeEmbedding, type EmbeddingIdentity } from "./identity.js";
import type { ResilientEmbedder } from "./resilient.js";

/** Who makes the vectors an index holds, in this process. */
export interface IndexProvider {
  /** The vectors the index holds (null: keyword only, or no index yet). */
  stored: EmbeddingIdentity | null;
  /** The configured provider that makes them, if this process has it. */
  current: ResilientEmbedder | undefined;
  /**
   * True when the index holds vectors whose provider this process does not have, and nobody asked
   * for another one (`auto`, `none`, or the named provider cannot run): the vectors are kept, files
   * that change owe theirs, and search answers by keywords until that provider is back.
   */
  keep: boolean;
}

/**
 * Decide who embeds for an index holding `stored` vectors. A process without the index's provider
 * never throws its vectors away: an app that opened the workspace with its own embedder, then a CLI
 * call without it, leaves the app's vectors in place. Only a provider the user named (`explicit`)
 * replaces them, by switching the vectors (see `sync/vector-switch.ts`).
 */
export function indexProvider(
  chain: EmbedderChain,
  stored: EmbeddingIdentity | null | undefined,
  explicit: boolean,
): IndexProvider {
  const current = chain.find(stored);
  const keep = Boolean(stored) && !current && !(explicit && chain.primary);
  return { stored: stored ?? null, current, keep };
}

/** Why search cannot use the index's vectors here, and how to make their provider available. */
export function missingProviderReason(stored: EmbeddingIdentity): string {
  const known = ["openai", "gemini", "local"].includes(stored.provider);
  const how = known
    ? `set embedding.provider to "${stored.provider}" with model "${stored.model}" and make it usable (key, model file), or run engram sync --force to re-embed with the provider you have`
    : `open the workspace with that embedder (createMemory({ embedder })), or run engram sync --force to re-embed with a provider you have`;
  return `the index was embedded with ${describeEmbedding(stored)}, which is not available here (${how})`;
}
