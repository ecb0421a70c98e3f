import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadConfig, resolveConfig } from "./config/load.js";
import type { EngramConfig, EngramConfigInput } from "./config/schema.js";
import type { ConsolidationResult } from "./consolidation/apply.js";
import { undoConsolidation } from "./consolidation/apply.js";
import type { LineRef } from "./consolidation/citations.js";
import { type ForgetOptions, type ForgetResult, forget } from "./consolidation/forget.js";
import {
  type MaintenanceOptions,
  type MaintenanceRun,
  type MaintenanceStatus,
  maintenanceStatus,
  runMaintenance,
} from "./consolidation/maintenance.js";
import { consolidateMemory, type MemoryConsolidateOptions } from "./consolidation/memory-api.js";
import type { ConsolidationPlan } from "./consolidation/types.js";
import { type UpdateOptions, type UpdateResult, updateMemory } from "./consolidation/update.js";
import { EmbedderChain } from "./embedding/chain.js";
import type { CircuitState } from "./embedding/circuit-breaker.js";
import type { Embedder } from "./embedding/embedder.js";
import {
  describeEmbedding,
  type EmbeddingIdentity,
  embeddingIdentity,
  IDENTITY_META_KEY,
  identityChanges,
  indexIdentity,
  parseIdentity,
} from "./embedding/identity.js";
import type { ProviderStats, ResilientEmbedder } from "./embedding/resilient.js";
import { type ProviderRegistry, selectEmbedders } from "./embedding/select.js";
import { EngramError } from "./errors.js";
import type { ApplyResult } from "./lifecycle/apply.js";
import { RecallLog } from "./lifecycle/recall.js";
import { searchGroupScope } from "./search/group-scope.js";
import { search } from "./search/searcher.js";
import type { SearchOptions, SearchResponse } from "./search/types.js";
import type { MemoryStore, StoreFactory } from "./store/store.js";
import { Coalescer } from "./sync/coalesce.js";
import type { IndexContext } from "./sync/context.js";
import { DirtyPaths } from "./sync/dirty-paths.js";
import { estimateSync, type SyncEstimate } from "./sync/estimate.js";
import { readHeartbeat, type WatcherHealth, watcherHealth } from "./sync/heartbeat.js";
import { EmbeddingAborted, runSync, type SyncOptions } from "./sync/indexer.js";
import { planSync } from "./sync/plan.js";
import {
  CACHE_STATS_META_KEY,
  LAST_SYNC_META_KEY,
  PENDING_VECTORS_META_KEY,
  parseCacheStats,
  parsePendingPaths,
  type SyncReport,
} from "./sync/report.js";
import { type MemoryWatchOptions, startWatch } from "./sync/watch-session.js";
import type { Watcher } from "./sync/watcher.js";
import { type Analyzer, createAnalyzer } from "./text/analyzer.js";
import { type AppendResult, appendDailyLog, appendLongTerm } from "./workspace/append.js";
import { type Clock, systemClock } from "./workspace/clock.js";
import { assertWorkspace, INDEX_DIR } from "./workspace/layout.js";
import { tryWorkspaceLock, withWorkspaceLock } from "./workspace/lock.js";
import { type ResolvedLayout, resolveLayout } from "./workspace/presets.js";
import { readMemoryFile } from "./workspace/read.js";
import { createTierResolver } from "./workspace/tiers.js";

/** How to open a workspace's memory. */
export interface MemoryOptions {
  /** The workspace folder (must exist). */
  workspace: string;
  /** The store, or a factory given `<workspace>/.engram` (e.g. `sqliteStore()` from `@engram/store-sqlite`). */
  store: MemoryStore | StoreFactory;
  /**
   * Embedding provider, or several: the primary first, then fallbacks tried when it fails (see
   * `selectEmbedders` to build them from the config). Core wraps each in retries and a circuit
   * breaker. null or absent: keyword search only (hybrid queries answer `degraded`).
   */
  embedder?: Embedder | readonly Embedder[] | null;
  /**
   * Provider drivers to choose from by the config (`embedding.provider`, `fallback`, `providers`)
   * and the environment, when `embedder` is not given — e.g.
   * `{ openai: async () => (await import("@engram/embed-openai")).openaiProvider }`.
   */
  providers?: ProviderRegistry;
  /** Environment for provider selection and settings (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Config merged over `engram.config.json` (section by section). */
  config?: EngramConfigInput;
  /** Read `engram.config.json` from the workspace (default true). */
  readConfigFile?: boolean;
  /** Clock for dated writes (tests inject one). */
  clock?: Clock;
}

/** Options of {@link Memory.sync}. */
export interface MemorySyncOptions extends SyncOptions {
  /**
   * When another process is syncing this workspace: true (default) waits for it (up to
   * `lockTimeoutMs`), false returns `undefined` at once.
   */
  wait?: boolean;
  /** How long to wait for another process's sync (default 60 s). */
  lockTimeoutMs?: number;
}

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
  index: { embedding: EmbeddingIdentity | null; analyzer: string | null; rebuildNeeded: string[] };
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
  /** True when hybrid search would answer from keywords alone. */
  degraded: boolean;
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

/** Meta key where provider health is kept between processes. */
const HEALTH_META_KEY = "engram.providerHealth";

/**
 * Open a workspace's memory: load and validate the config, open the store, and return the
 * {@link Memory} every operation goes through.
 *
 * @example
 * ```ts
 * import { createMemory } from "@engram/core";
 * import { sqliteStore } from "@engram/store-sqlite";
 *
 * const memory = await createMemory({ workspace: "./my-agent", store: sqliteStore() });
 * await memory.appendDaily("Deployed v2 to staging; rollback plan in ops/rollback.md");
 * const { results } = await memory.search("rollback plan");
 * await memory.close();
 * ```
 */
export async function createMemory(options: MemoryOptions): Promise<Memory> {
  const workspace = await assertWorkspace(options.workspace);
  const config =
    options.readConfigFile === false
      ? resolveConfig(options.config)
      : await loadConfig(workspace, options.config);
  const indexDir = join(workspace, INDEX_DIR);
  await mkdir(indexDir, { recursive: true });
  // The index is a cache: keep it out of the workspace's version control.
  await writeFile(join(indexDir, ".gitignore"), "*\n", { flag: "wx" }).catch(() => {});
  const store =
    typeof options.store === "function"
      ? await options.store({ workspace, indexDir })
      : options.store;
  await store.init();
  const layout = resolveLayout(config);
  const selection =
    options.embedder === undefined && options.providers
      ? await selectEmbedders(config.embedding, options.providers, options.env)
      : { embedders: options.embedder ?? [], notes: [] };
  const given = selection.embedders;
  const chain = new EmbedderChain(Array.isArray(given) ? given : [given as Embedder], {
    retry: config.embedding.retry,
    circuit: config.embedding.circuit,
  });
  const [identityJson, healthJson] = await Promise.all([
    store.getMeta(IDENTITY_META_KEY),
    store.getMeta(HEALTH_META_KEY),
  ]);
  restoreHealth(chain, parseJson<Record<string, HealthRecord>>(healthJson ?? undefined));
  const indexed = chain.find(parseIdentity(identityJson)?.embedding);
  return new Memory({
    workspace,
    config,
    store,
    analyzer: createAnalyzer(config.analyzer),
    embedder: indexed ?? chain.primary,
    chain,
    providerNotes: selection.notes,
    tierOf: createTierResolver(layout.tiers, config.defaultTier),
    clock: options.clock ?? systemClock,
  });
}

type HealthRecord = Pick<CircuitState, "failures" | "openUntil" | "lastError" | "lastErrorCode">;

function restoreHealth(chain: EmbedderChain, saved: Record<string, HealthRecord> | null): void {
  if (!saved) return;
  for (const member of chain.members) {
    const record = saved[member.describe()];
    if (record) member.breaker.restore(record);
  }
}

/**
 * One workspace's memory: writes (append-only daily log, long-term file), sync, hybrid search,
 * `get` of exact lines, status and watching. Create it with {@link createMemory}.
 */
export class Memory {
  readonly workspace: string;
  readonly config: EngramConfig;
  readonly store: MemoryStore;
  readonly analyzer: Analyzer;
  /** The configured providers, primary first. */
  readonly embedders: EmbedderChain;
  /** The provider the index is (or will next be) embedded with; null: keyword only. */
  #embedder: ResilientEmbedder | null;
  readonly #providerNotes: string[];
  readonly #ctx: IndexContext;
  readonly #clock: Clock;
  readonly #syncs: Coalescer<MemorySyncOptions, SyncReport | undefined>;
  /** Paths engram wrote since they were last indexed: indexed before the next search. */
  readonly #dirty = new DirtyPaths();
  readonly #watchers = new Set<Watcher>();
  #closed = false;
  #layout: ResolvedLayout | undefined;
  /** Search hits and reads per short-term stretch: what promotion candidates are scored on. */
  readonly recall: RecallLog;

  /** @internal Use {@link createMemory}. */
  constructor(
    parts: IndexContext & {
      clock: Clock;
      chain: EmbedderChain;
      embedder: ResilientEmbedder | null;
      providerNotes?: readonly string[];
    },
  ) {
    this.#providerNotes = [...(parts.providerNotes ?? [])];
    this.workspace = parts.workspace;
    this.config = parts.config;
    this.store = parts.store;
    this.analyzer = parts.analyzer;
    this.embedders = parts.chain;
    this.#embedder = parts.embedder;
    this.#clock = parts.clock;
    this.#ctx = parts;
    this.recall = new RecallLog(parts.workspace, () => parts.clock.now());
    this.#syncs = new Coalescer(
      (options) => this.#syncLocked(options),
      (a, b) => ({
        ...a,
        ...b,
        force: Boolean(a.force || b.force),
        paths: a.paths && b.paths ? [...new Set([...a.paths, ...b.paths])] : undefined,
        wait: a.wait !== false || b.wait !== false,
        onProgress: chain(a.onProgress, b.onProgress),
      }),
    );
  }

  /**
   * Bring the index in line with the files. One sync runs at a time per workspace: calls in this
   * process coalesce, other processes are serialised by a lock in `.engram/locks/`.
   * Returns undefined only with `wait: false` when another process is syncing.
   */
  async sync(options: MemorySyncOptions = {}): Promise<SyncReport | undefined> {
    this.#assertOpen();
    return this.#syncs.request(options);
  }

  /** The provider the index is (or will next be) embedded with; null: keyword search only. */
  get embedder(): Embedder | null {
    return this.#embedder;
  }

  /** The clock dated writes use (tests inject one through {@link MemoryOptions.clock}). */
  get clock(): Clock {
    return this.#clock;
  }

  /** The workspace layout the config names: tier map, daily-log folder, long-term file. */
  get layout(): ResolvedLayout {
    this.#layout ??= resolveLayout(this.config);
    return this.#layout;
  }

  /**
   * Records that engram code outside this class (the tier APIs, lifecycle moves) wrote or removed
   * these workspace-relative files: they are re-indexed before the next search, like
   * {@link appendDaily}'s writes.
   */
  noteWritten(...paths: string[]): void {
    this.#assertOpen();
    for (const p of paths) this.#dirty.mark(p);
  }

  async #syncLocked(options: MemorySyncOptions): Promise<SyncReport | undefined> {
    const started = this.#dirty.snapshot();
    const run = async () => {
      const report = await this.#syncWithFallback(options);
      this.#dirty.settle(started, options.paths);
      return report;
    };
    if (options.wait === false) {
      const release = await tryWorkspaceLock(this.workspace, "sync");
      if (!release) return undefined;
      try {
        return await run();
      } finally {
        await release();
      }
    }
    return withWorkspaceLock(this.workspace, "sync", run, {
      timeoutMs: options.lockTimeoutMs ?? 60_000,
    });
  }

  /**
   * What a sync would index and send to the embedding provider (chunks, estimated tokens, cache
   * hits), without writing anything or calling the provider: the cost guard's dry run.
   */
  async estimateSync(): Promise<SyncEstimate> {
    this.#assertOpen();
    const current = this.#embedder;
    const embedder = current?.breaker.allows()
      ? current
      : (this.embedders.available()[0] ?? current);
    return estimateSync({ ...this.#ctx, embedder });
  }

  /**
   * Run a sync with the first provider that can embed. A provider that fails midway hands over to
   * the next one (which rebuilds the vectors, from the cache where it can) only after that one has
   * answered a probe, so an outage never swaps a working index for a broken one. When no provider
   * can embed, the index keeps its identity: changed files become keyword-searchable now and their
   * vectors are owed to a later sync.
   */
  async #syncWithFallback(options: MemorySyncOptions): Promise<SyncReport> {
    const chain = this.embedders;
    const stored = parseIdentity(await this.store.getMeta(IDENTITY_META_KEY))?.embedding;
    const current = chain.find(stored);
    try {
      const candidates = chain.members.filter((m) => m.breaker.allows());
      for (const [i, candidate] of candidates.entries()) {
        const switching = candidate !== current && current !== undefined;
        if (switching && !(await probe(candidate, options.signal))) continue;
        const last = i === candidates.length - 1;
        try {
          const report = await runSync(
            { ...this.#ctx, embedder: candidate },
            {
              ...options,
              onEmbeddingFailure: last ? "pending" : "abort",
              fallbackUsed: chain.isFallback(candidate),
            },
          );
          this.#embedder = candidate;
          return report;
        } catch (error) {
          if (!(error instanceof EmbeddingAborted)) throw error;
        }
      }
      // Nobody can embed now: keep the index's identity and owe the vectors.
      const keep = current ?? chain.primary;
      this.#embedder = keep;
      return await runSync(
        { ...this.#ctx, embedder: keep },
        { ...options, fallbackUsed: chain.isFallback(keep) },
      );
    } finally {
      await this.#saveHealth();
    }
  }

  async #saveHealth(): Promise<void> {
    if (!this.embedders.members.length) return;
    const health: Record<string, HealthRecord> = {};
    for (const member of this.embedders.members) {
      const { failures, openUntil, lastError, lastErrorCode } = member.circuit();
      health[member.describe()] = { failures, openUntil, lastError, lastErrorCode };
    }
    await this.store.setMeta(HEALTH_META_KEY, JSON.stringify(health));
  }

  /**
   * Hybrid search (see {@link SearchOptions}). Files engram itself wrote are indexed first, so an
   * agent always finds what it just wrote; other edits are picked up by `sync` or `watch`.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    this.#assertOpen();
    if (typeof query !== "string") {
      throw new EngramError("INVALID_ARGUMENT", "query must be a string", {
        hint: 'pass text such as "deploy plan"',
      });
    }
    if (this.#dirty.size) await this.sync({ paths: this.#dirty.paths(), wait: false });
    // The query is embedded by the provider whose vectors the index holds, never another one.
    const stored = parseIdentity(await this.store.getMeta(IDENTITY_META_KEY))?.embedding ?? null;
    const embedder = this.embedders.find(stored) ?? this.#embedder;
    const run = (opts: SearchOptions) =>
      search(
        {
          store: this.store,
          analyzer: this.analyzer,
          embedder,
          fallback: this.embedders.isFallback(embedder),
          indexed: stored,
          config: this.config.search,
        },
        query,
        opts,
      ).then((response) => {
        this.recall.noteSearch(query, response.results);
        return response;
      });
    if (options.scope !== "group") return run(options);
    return searchGroupScope(run, options, {
      workspace: this.workspace,
      personalFiles: this.layout.personalFiles,
      maxResults: this.config.search.maxResults,
      maxBytes: this.config.sync.maxFileBytes,
    });
  }

  /**
   * Read exact lines of a memory file (`memory_get`): workspace-relative path, optionally from
   * line `from` (1-based) for `lines` lines. Only Markdown memory files are readable; paths that
   * leave the workspace or go through symlinks are refused.
   */
  get(path: string, options: { from?: number; lines?: number } = {}) {
    this.#assertOpen();
    return readMemoryFile(this.workspace, path, {
      ...options,
      extraPaths: this.config.extraPaths,
      maxBytes: this.config.sync.maxFileBytes,
    }).then((slice) => {
      this.recall.noteGet(slice.path, slice.startLine, slice.endLine, this.#ctx.tierOf(slice.path));
      return slice;
    });
  }

  /**
   * Append a timestamped entry to today's daily log (`memory/YYYY-MM-DD.md`, or the layout's
   * daily-log folder, e.g. `memory/logs/` for the `logs` layout). Never rewrites the file.
   */
  async appendDaily(text: string, options: { date?: string } = {}): Promise<AppendResult> {
    this.#assertOpen();
    const result = await appendDailyLog(this.workspace, text, {
      clock: this.#clock,
      dir: this.layout.dailyLogDir,
      ...(options.date !== undefined ? { date: options.date } : {}),
    });
    this.#dirty.mark(result.path);
    return result;
  }

  /**
   * Append an entry under a timestamp heading to the layout's long-term file (`MEMORY.md`, or
   * `memory/long-term.md` for the `logs` layout), or to `file`. Never rewrites the file.
   */
  async appendLongTerm(text: string, options: { file?: string } = {}): Promise<AppendResult> {
    this.#assertOpen();
    const result = await appendLongTerm(this.workspace, text, {
      clock: this.#clock,
      file: options.file ?? this.layout.longTermFile,
    });
    this.#dirty.mark(result.path);
    return result;
  }

  /**
   * Plan (default; the plan is saved so a later apply does exactly that) or apply a consolidation
   * pass over long-term memory, with the memory's language model or, without one, the
   * deterministic mode. See `planConsolidation` / `applyConsolidation`.
   */
  consolidate(options: MemoryConsolidateOptions & { mode: "apply" }): Promise<ConsolidationResult>;
  consolidate(options?: MemoryConsolidateOptions & { mode?: "plan" }): Promise<ConsolidationPlan>;
  consolidate(
    options: MemoryConsolidateOptions = {},
  ): Promise<ConsolidationPlan | ConsolidationResult> {
    this.#assertOpen();
    return consolidateMemory(this, options);
  }

  /** Undo the last consolidation pass (see `undoConsolidation`). */
  undoConsolidation(): Promise<ApplyResult> {
    this.#assertOpen();
    return undoConsolidation(this);
  }

  /** Forget lines or every entry containing a text: archived with a tombstone, undoable (see `forget`). */
  forget(target: LineRef | { query: string }, options: ForgetOptions = {}): Promise<ForgetResult> {
    this.#assertOpen();
    return forget(this, target, options);
  }

  /** Replace lines or a section of a long-term file, archiving the old text (see `updateMemory`). */
  update(
    target: LineRef | { path: string; section: string },
    text: string,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    this.#assertOpen();
    return updateMemory(this, target, text, options);
  }

  /** Whether scheduled maintenance is due, the last run and its outcome (see `maintenanceStatus`). */
  maintenanceStatus(): Promise<MaintenanceStatus> {
    this.#assertOpen();
    return maintenanceStatus(this);
  }

  /** Run maintenance now: lifecycle rules and a consolidation pass (see `runMaintenance`). */
  runMaintenance(options: MaintenanceOptions = {}): Promise<MaintenanceRun> {
    this.#assertOpen();
    return runMaintenance(this, options);
  }

  /** Index size, provider, identity, pending changes and the last sync. */
  async status(): Promise<MemoryStatus> {
    this.#assertOpen();
    const [stats, storedJson, lastJson, pendingJson, cacheJson, cacheEntries, plan, heartbeat] =
      await Promise.all([
        this.store.stats(),
        this.store.getMeta(IDENTITY_META_KEY),
        this.store.getMeta(LAST_SYNC_META_KEY),
        this.store.getMeta(PENDING_VECTORS_META_KEY),
        this.store.getMeta(CACHE_STATS_META_KEY),
        this.store.cache && this.config.cache.enabled ? this.store.cache.size() : undefined,
        planSync(this.#ctx),
        readHeartbeat(this.workspace),
      ]);
    const stored = parseIdentity(storedJson);
    const wanted = indexIdentity({
      analyzer: this.analyzer.id,
      chunking: this.config.chunking,
      embedder: this.embedder,
    });
    const rebuildNeeded = identityChanges(stored, wanted);
    const lastSync = parseJson<SyncReport>(lastJson);
    const lookups = parseCacheStats(cacheJson);
    const looked = lookups.hits + lookups.misses;
    const activeKey = describeEmbedding(stored?.embedding);
    return {
      workspace: this.workspace,
      store: { kind: this.store.kind, ...stats },
      embedding: this.embedder ? embeddingIdentity(this.embedder) : null,
      providers: this.embedders.members.map((m) => ({
        identity: embeddingIdentity(m),
        primary: m === this.embedders.primary,
        active: m.describe() === activeKey,
        circuit: m.circuit(),
        stats: { ...m.stats },
      })),
      providerNotes: [...this.#providerNotes],
      cache:
        cacheEntries === undefined
          ? null
          : {
              entries: cacheEntries,
              maxEntries: this.config.cache.maxEntries,
              ...lookups,
              hitRate: looked > 0 ? lookups.hits / looked : null,
            },
      vectorsPending: parsePendingPaths(pendingJson).length,
      index: {
        embedding: stored?.embedding ?? null,
        analyzer: stored?.analyzer ?? null,
        rebuildNeeded,
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
      sessions: this.config.sessions.enabled
        ? {
            indexed: [...plan.known.values()].filter((r) => r.source === "sessions").length,
            deferred: plan.deferred.length,
          }
        : null,
      degraded: !this.embedder || !stored?.embedding || rebuildNeeded.length > 0,
    };
  }

  /**
   * Keep the index fresh while files change: debounced sync after edits (default 1.5 s), a
   * periodic stat-only re-scan (`sync.rescanIntervalMs`), re-attaching when a watched folder is
   * deleted and created again, and a heartbeat in `.engram/watch.json` for `status`. Session
   * transcripts are re-indexed once they grow past the sessions delta. Close the watcher (or the
   * memory) to stop.
   */
  watch(options: MemoryWatchOptions = {}): Watcher {
    this.#assertOpen();
    const watcher = startWatch(
      { ...this.#ctx, embedder: this.#embedder },
      () => this.sync(),
      options,
    );
    this.#watchers.add(watcher);
    return {
      ready: watcher.ready,
      close: async () => {
        this.#watchers.delete(watcher);
        await watcher.close();
      },
    };
  }

  /** Stop watchers, wait for a sync in flight, close the store and the embedder. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#watchers].map((w) => w.close()));
    await this.#syncs.settled();
    await this.recall.flush();
    await this.store.close();
    await this.embedders.close();
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new EngramError("CLOSED", "this memory is closed", {
        hint: "open it again with createMemory",
      });
    }
  }
}

function chain<T>(
  a?: (value: T) => void,
  b?: (value: T) => void,
): ((value: T) => void) | undefined {
  if (!a || !b) return a ?? b;
  return (value) => {
    a(value);
    b(value);
  };
}

function parseJson<T>(json: string | undefined): T | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as T;
  } catch {
    return null;
  }
}

/** One cheap call proving a provider answers before the index is rebuilt with it. */
async function probe(embedder: Embedder, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await embedder.embedQuery("engram provider check", signal);
    return true;
  } catch {
    return false;
  }
}
