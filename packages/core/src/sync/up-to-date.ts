import { parseRecoveries, RECOVERY_META_KEY } from "../driver/recovery.js";
import type { EmbedderChain } from "../embedding/chain.js";
import {
  embeddingIdentity,
  IDENTITY_META_KEY,
  identityChanges,
  indexIdentity,
  parseIdentity,
} from "../embedding/identity.js";
import { indexProvider } from "../embedding/index-provider.js";
import { readMetas } from "../search/search-meta.js";
import type { IndexContext } from "./context.js";
import { planSync } from "./plan.js";
import { CACHE_LIMIT_META_KEY, PENDING_VECTORS_META_KEY, parsePendingPaths } from "./report.js";

const KEYS = [
  IDENTITY_META_KEY,
  PENDING_VECTORS_META_KEY,
  RECOVERY_META_KEY,
  CACHE_LIMIT_META_KEY,
] as const;

/**
 * Whether a sync would leave the index as it is, told from the index's meta and the files' stats
 * alone: no sync lock, nothing written, no provider called. It answers true only when the sync
 * would find nothing to do:
 *
 * - the index identity (analyzer, chunking, vectors) is what a sync with the provider it would
 *   choose here writes, so no rebuild or vector switch is due;
 * - no file owes its vectors, no recovery waits to be reported, the cache's limit is the one
 *   recorded;
 * - no file is new, changed (mtime, size, tier) or gone (a transcript that grew less than the
 *   sessions delta counts as unchanged, as in a sync).
 *
 * Any doubt answers false, and the sync decides under its lock. A one-shot search asks this before
 * syncing: an unchanged workspace then costs a scan, not the lock and a write of the last-sync
 * report (~15–20 ms of a new process, `bench/results/perf-history.md`).
 *
 * @param explicit true when the user named the provider (see `indexProvider`).
 */
export async function syncWouldChangeNothing(
  ctx: IndexContext,
  chain: EmbedderChain,
  explicit: boolean,
): Promise<boolean> {
  const { store, config } = ctx;
  const meta = await readMetas(store, KEYS);
  const stored = parseIdentity(meta.get(IDENTITY_META_KEY));
  if (!stored) return false;
  if (parsePendingPaths(meta.get(PENDING_VECTORS_META_KEY)).length > 0) return false;
  if (parseRecoveries(meta.get(RECOVERY_META_KEY)).length > 0) return false;
  if (ctx.cache && Number(meta.get(CACHE_LIMIT_META_KEY)) !== config.cache.maxEntries) return false;
  // The vectors a sync would write: those of the first provider it would try, else the index's own
  // (see `syncWithProviders`).
  const { keep } = indexProvider(chain, stored.embedding, explicit);
  const first = keep ? undefined : chain.available()[0];
  const embedding = !store.capabilities.vector
    ? null
    : first
      ? embeddingIdentity(first)
      : stored.embedding;
  const wanted = indexIdentity({ analyzer: ctx.analyzer.id, chunking: config.chunking, embedding });
  if (identityChanges(stored, wanted).length > 0) return false;
  const plan = await planSync(ctx);
  return plan.changed.length === 0 && plan.removed.length === 0;
}
