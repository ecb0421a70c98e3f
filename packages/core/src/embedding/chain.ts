import type { CircuitPolicy } from "./circuit-breaker.js";
import type { Embedder } from "./embedder.js";
import { describeEmbedding, type EmbeddingIdentity, embeddingIdentity } from "./identity.js";
import { ResilientEmbedder } from "./resilient.js";
import type { RetryHooks, RetryPolicy } from "./retry.js";

/**
 * The configured providers in order: the primary, then the `fallback` ones. Indexing uses the first
 * whose circuit is closed; a query uses the one whose vectors the index holds, so vectors of
 * different models never meet.
 */
export class EmbedderChain {
  readonly members: readonly ResilientEmbedder[];

  constructor(
    embedders: readonly Embedder[],
    options: { retry: RetryPolicy; circuit: CircuitPolicy; hooks?: RetryHooks; now?: () => number },
  ) {
    this.members = embedders.map((e) =>
      e instanceof ResilientEmbedder ? e : new ResilientEmbedder(e, options),
    );
  }

  /** The preferred provider, or null when none is configured. */
  get primary(): ResilientEmbedder | null {
    return this.members[0] ?? null;
  }

  /** The member that makes vectors of this identity. */
  find(identity: EmbeddingIdentity | null | undefined): ResilientEmbedder | undefined {
    if (!identity) return undefined;
    const key = describeEmbedding(identity);
    return this.members.find((m) => describeEmbedding(embeddingIdentity(m)) === key);
  }

  /** True when `member` is not the primary (a fallback is answering). */
  isFallback(member: Embedder | null | undefined): boolean {
    return member !== null && member !== undefined && member !== this.primary;
  }

  /** Members whose circuit lets calls through, in order. */
  available(): ResilientEmbedder[] {
    return this.members.filter((m) => m.breaker.allows());
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.close()));
  }
}
