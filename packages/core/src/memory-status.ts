import type { EmbedderChain } from "./embedding/chain.js";
import type { CircuitState } from "./embedding/circuit-breaker.js";
import {
  describeEmbedding,
  type EmbeddingIdentity,
  embeddingIdentity,
  IDENTITY_META_KEY,
  identityChanges,
  indexIdentity,
  parseIdentity,
} from "./embedding/identity.js";
import { indexProvider, missingProviderReason } from "./embedding/index-provider.js";
import type { ProviderStats, ResilientEmbedder } from "./embedding/resilient.js";
import type { LanguageModelStatus, WorkspaceModels } from "./model/workspace-models.js";
import type { RerankStatus } from "./search/rerank-slot.js";
import { describeRecovery, parseRecoveries, RECOVERY_META_KEY } from "./store/recovery.js";
import type { IndexContext } from "./sync/context.js";
import { readHeartbeat, type WatcherHealth, watcherHealth } from "./sync/heartbeat.js";
import { planSync } from "./sync/plan.js";
import {
  CACHE_STATS_META_KEY,
  LAST_SYNC_META_KEY,
  PENDING_VECTORS_META_KEY,
  parseCacheStats,
  parsePendingPaths,
  type SyncReport,
} from "./sync/report.js";

/** What `engram status` shows. */
export interface MemoryStatus {
  workspace: string;
  store: { kind: string; files: number; chunks: number; vectors: number; bytes?: number };
  /** The provider the index is (or will be) embedded with, or null (keyword only). */
  embedding: EmbeddingIdentity | null;
  /** Every configured provider in order (primary first), with its health in this process. */
  providers: ProviderStatus[];
  /** Why providers were passed over when they were chosen from the config (e.g. no API key). */
  providerNotes: string[];
  /**
   * The embedding cache: entries, and lookups by syncs since the index was created (a hit is a
   * vector not paid for); `hitRate` is null before the first lookup.
   */
  cache: {
    entries: number;
    maxEntries: number;
    hits: number;
    misses: number;
    hitRate: number | null;
  } | null;
  /** Files indexed for keyword search whose vectors are still owed. */
  vectorsPending: number;
  /** The identity the index was built with, and whether it differs from the wanted one. */
  index: {
    embedding: EmbeddingIdentity | null;
    analyzer: string | null;
    rebuildNeeded: string[];
    /** The index was found damaged and replaced; the next sync rebuilds it and says so once. */
    recovered: string[];
  };
  /**
   * Files added or modified (by mtime/size) and removed since the last sync; `deferred`: session
   * transcripts that grew by less than the sessions delta (re-indexed once they pass it).
   */
  pending: { changed: number; removed: number; deferred: number; paths: string[] };
  lastSync: SyncReport | null;
  /** Milliseconds since the last sync finished, or null when there was none. */
  lastSyncAgeMs: number | null;
  /** The watcher of this workspace (any process), from its heartbeat file `.engram/watch.json`. */
  watcher: WatcherHealth;
  /** Session transcripts (null when `sessions.enabled` is false): how many are indexed. */
  sessions: { indexed: number; deferred: number } | null;
  /** Problems found while opening (a configured provider that cannot run), shown once by hosts. */
  warnings: string[];
  /**
   * True when hybrid search would answer from keywords alone: no provider, no vectors in the index,
   * the index's provider missing here, a rebuild pending, or the provider paused.
   */
  degraded: boolean;
  /** Why it is degraded, in words. */
  degradedReason?: string;
  /** The rerank stage (null: no reranker configured): provider, settings, cost and latency. */
  rerank?: RerankStatus | null;
  /** The language models (`llm`): each one's health, and the tokens spent with them. */
  llm: LanguageModelStatus;
}

/** One configured embedding provider, as `engram status` shows it. */
export interface ProviderStatus {
  identity: EmbeddingIdentity;
  /** True for the primary; false for fallbacks. */
  primary: boolean;
  /** True when the index holds this provider's vectors. */
  active: boolean;
  circuit: CircuitState;
  stats: ProviderStats;
}

/** What {@link buildStatus} reads. */
export interface StatusParts extends IndexContext {
  chain: EmbedderChain;
  embedder: ResilientEmbedder | null;
  explicitProvider: boolean;
  providerNotes: readonly string[];
  warnings: readonly string[];
  models: WorkspaceModels;
}

/** @internal `Memory.status()`: index size, providers, identity, pending changes, last sync. */
export async function buildStatus(parts: StatusParts): Promise<MemoryStatus> {
  const { store, config, chain } = parts;
  const [
    stats,
    storedJson,
    lastJson,
    pendingJson,
    cacheJson,
    cacheEntries,
    plan,
    heartbeat,
    recoveredJson,
  ] = await Promise.all([
    store.stats(),
    store.getMeta(IDENTITY_META_KEY),
    store.getMeta(LAST_SYNC_META_KEY),
    store.getMeta(PENDING_VECTORS_META_KEY),
    store.getMeta(CACHE_STATS_META_KEY),
    store.cache && config.cache.enabled ? store.cache.size() : undefined,
    planSync(parts),
    readHeartbeat(parts.workspace),
    store.getMeta(RECOVERY_META_KEY),
  ]);
  const stored = parseIdentity(storedJson);
  const owner = indexProvider(chain, stored?.embedding, parts.explicitProvider);
  const wanted = indexIdentity({
    analyzer: parts.analyzer.id,
    chunking: config.chunking,
    embedding: owner.keep
      ? owner.stored
      : parts.embedder
        ? embeddingIdentity(parts.embedder)
        : null,
  });
  const rebuildNeeded = identityChanges(stored, wanted);
  const lastSync = parseJson<SyncReport>(lastJson);
  const lookups = parseCacheStats(cacheJson);
  const looked = lookups.hits + lookups.misses;
  const activeKey = describeEmbedding(stored?.embedding);
  const degradedReason = whyDegraded({
    embedder: parts.embedder,
    stored: stored?.embedding ?? null,
    current: owner.current,
    rebuildNeeded,
    stats,
  });
  return {
    workspace: parts.workspace,
    store: { kind: store.kind, ...stats },
    embedding: parts.embedder ? embeddingIdentity(parts.embedder) : null,
    providers: chain.members.map((m) => ({
      identity: embeddingIdentity(m),
      primary: m === chain.primary,
      active: m.describe() === activeKey,
      circuit: m.circuit(),
      stats: { ...m.stats },
    })),
    providerNotes: [...parts.providerNotes],
    cache:
      cacheEntries === undefined
        ? null
        : {
            entries: cacheEntries,
            maxEntries: config.cache.maxEntries,
            ...lookups,
            hitRate: looked > 0 ? lookups.hits / looked : null,
          },
    vectorsPending: parsePendingPaths(pendingJson).length,
    index: {
      embedding: stored?.embedding ?? null,
      analyzer: stored?.analyzer ?? null,
      rebuildNeeded,
      recovered: parseRecoveries(recoveredJson).map(describeRecovery),
    },
    pending: {
      changed: plan.changed.length,
      removed: plan.removed.length,
      deferred: plan.deferred.length,
      paths: [...plan.changed.map((f) => f.path), ...plan.removed].slice(0, 50),
    },
    lastSync,
    lastSyncAgeMs: lastSync ? Math.max(0, Date.now() - Date.parse(lastSync.finishedAt)) : null,
    watcher: watcherHealth(heartbeat),
    sessions: config.sessions.enabled
      ? {
          indexed: [...plan.known.values()].filter((r) => r.source === "sessions").length,
          deferred: plan.deferred.length,
        }
      : null,
    warnings: [...parts.warnings],
    degraded: degradedReason !== undefined,
    ...(degradedReason !== undefined ? { degradedReason } : {}),
    llm: await parts.models.status(),
  };
}

/** Why hybrid search would answer from keywords alone now, or undefined when it would not. */
function whyDegraded(parts: {
  embedder: ResilientEmbedder | null;
  stored: EmbeddingIdentity | null;
  current: ResilientEmbedder | undefined;
  rebuildNeeded: readonly string[];
  stats: { chunks: number; vectors: number };
}): string | undefined {
  const { stored, current, stats } = parts;
  if (!stored) {
    return parts.embedder
      ? "the index holds no vectors yet (run engram sync)"
      : "no embedding provider is configured";
  }
  if (!current) return missingProviderReason(stored);
  if (parts.rebuildNeeded.length) {
    return `the index must be rebuilt (${parts.rebuildNeeded.join("; ")}): run engram sync`;
  }
  if (stats.chunks > 0 && stats.vectors === 0) {
    return "the index holds no vectors: they are owed to the next sync (run engram sync)";
  }
  const circuit = current.circuit();
  if (circuit.state === "open") {
    const until = circuit.openUntil ? new Date(circuit.openUntil).toISOString() : "later";
    return `${current.describe()} is paused until ${until}: ${circuit.lastError ?? "it failed"}`;
  }
  return undefined;
}

function parseJson<T>(json: string | undefined): T | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as T;
  } catch {
    return null;
  }
}
