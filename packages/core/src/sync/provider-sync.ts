import type { EmbedderChain } from "../embedding/chain.js";
import type { Embedder } from "../embedding/embedder.js";
import { IDENTITY_META_KEY, parseIdentity } from "../embedding/identity.js";
import { indexProvider } from "../embedding/index-provider.js";
import type { ResilientEmbedder } from "../embedding/resilient.js";
import type { IndexContext } from "./context.js";
import { EmbeddingAborted, runSync, type SyncOptions } from "./indexer.js";
import type { SyncReport } from "./report.js";

/**
 * Run a sync with the first provider that can embed. A provider that fails midway hands over to
 * the next one only after that one has answered a probe, and the next one's vectors replace the
 * index's only once they are all paid for (staged in the cache), so an outage never swaps a working
 * index for a broken or half-built one. When no provider can — or may — embed, the index keeps its
 * vectors: changed files become keyword-searchable now and owe their vectors to a later sync.
 *
 * @param explicit true when the user named the provider (see `indexProvider`).
 * @returns the report, and the provider whose vectors the index now holds (null: none here).
 */
export async function syncWithProviders(
  ctx: IndexContext,
  chain: EmbedderChain,
  options: SyncOptions,
  explicit: boolean,
): Promise<{ report: SyncReport; embedder: ResilientEmbedder | null }> {
  const stored = parseIdentity(await ctx.store.getMeta(IDENTITY_META_KEY))?.embedding ?? null;
  const { current, keep } = indexProvider(chain, stored, explicit);
  const candidates =
    (keep && !options.force) || !ctx.store.capabilities.vector ? [] : chain.available();
  for (const [i, candidate] of candidates.entries()) {
    const switching = candidate !== current && stored !== null;
    if (switching && !(await probe(candidate, options.signal))) continue;
    const last = i === candidates.length - 1;
    try {
      const report = await runSync(
        { ...ctx, embedder: candidate },
        {
          ...options,
          onEmbeddingFailure: last ? "pending" : "abort",
          fallbackUsed: chain.isFallback(candidate),
        },
      );
      const held = report.vectorSwitch && !report.vectorSwitch.switched ? current : candidate;
      return { report, embedder: held ?? null };
    } catch (error) {
      if (!(error instanceof EmbeddingAborted)) throw error;
    }
  }
  const report = await runSync({ ...ctx, embedder: null, vectors: stored }, options);
  return { report, embedder: current ?? (keep ? null : chain.primary) };
}

/** One cheap call proving a provider answers before the index's vectors are switched to it. */
async function probe(embedder: Embedder, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await embedder.embedQuery("engram provider check", signal);
    return true;
  } catch {
    return false;
  }
}
