import { writeFile } from "node:fs/promises";
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
import type { KeyValueStore, MemoryStore, StoreFactory } from "./driver/contract.js";
import { takeRecoveries } from "./driver/recovery.js";
import { EmbeddingCache } from "./embedding/cache.js";
import { EmbedderChain } from "./embedding/chain.js";
import type { Embedder } from "./embedding/embedder.js";
import { HEALTH_META_KEY, healthJson, restoreHealth } from "./embedding/health.js";
import { IDENTITY_META_KEY, parseIdentity } from "./embedding/identity.js";
import { indexProvider, missingProviderReason } from "./embedding/index-provider.js";
import type { ResilientEmbedder } from "./embedding/resilient.js";
import { type ProviderRegistry, selectEmbedders } from "./embedding/select.js";
import { EngramError, isEngramError } from "./errors.js";
import type { ApplyResult } from "./lifecycle/apply.js";
import { RecallLog } from "./lifecycle/recall.js";
import { buildStatus, type MemoryStatus } from "./memory-status.js";
import type { LanguageModel } from "./model/language-model.js";
import type { LanguageModelRegistry } from "./model/provider.js";
import type { Reranker } from "./model/reranker.js";
import type { RerankerRegistry } from "./model/reranker-provider.js";
import { WorkspaceModels } from "./model/workspace-models.js";
import { modelView } from "./privacy/model-view.js";
import { SealingSession } from "./sealing/session.js";
import { appendThroughSealing } from "./sealing/writes.js";
import { searchGroupScope } from "./search/group-scope.js";
import { searchRelevance } from "./search/relevance-signals.js";
import { RerankSlot } from "./search/rerank-slot.js";
import { readMetas, SEARCH_META_KEYS, withMetaValues } from "./search/search-meta.js";
import { search } from "./search/searcher.js";
import type { SearchOptions, SearchResponse } from "./search/types.js";
import { Coalescer } from "./sync/coalesce.js";
import type { IndexContext } from "./sync/context.js";
import { DirtyPaths } from "./sync/dirty-paths.js";
import { estimateSync, type SyncEstimate } from "./sync/estimate.js";
import type { SyncOptions } from "./sync/indexer.js";
import { syncWithProviders } from "./sync/provider-sync.js";
import { PENDING_VECTORS_META_KEY, parsePendingPaths, type SyncReport } from "./sync/report.js";
import { syncWouldChangeNothing } from "./sync/up-to-date.js";
import { type MemoryWatchOptions, startWatch } from "./sync/watch-session.js";
import type { Watcher } from "./sync/watcher.js";
import { type Analyzer, createAnalyzer } from "./text/analyzer.js";
import { type AppendResult, appendDailyLog, appendLongTerm } from "./workspace/append.js";
import { type Clock, localDate, systemClock } from "./workspace/clock.js";
import { ensureIndexDir } from "./workspace/index-dir.js";
import { assertWorkspace, dailyLogPath, INDEX_DIR } from "./workspace/layout.js";
import { type LockWait, tryWorkspaceLock, withWorkspaceLock } from "./workspace/lock.js";
import { type ResolvedLayout, resolveLayout } from "./workspace/presets.js";
import { readMemoryFile } from "./workspace/read.js";
import { createTierResolver } from "./workspace/tiers.js";

export type { MemoryStatus, ProviderStatus } from "./memory-status.js";

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
  /**
   * Language model, or several: the primary first, then fallbacks (see `selectLanguageModels`).
   * Core wraps each in retries, a circuit breaker and token accounting (`memory.languageModel`).
   * null: none, whatever the config says.
   */
  languageModel?: LanguageModel | readonly LanguageModel[] | null;
  /**
   * Language-model drivers to choose from by the config (`llm.provider`, `fallback`, `providers`)
   * and the environment, when `languageModel` is not given — e.g.
   * `{ openai: async () => (await import("@engram/embed-openai")).openaiLanguageModelProvider }`.
   */
  languageModels?: LanguageModelRegistry;
  /** Environment for provider selection and settings (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The reranker (null: none), instead of the one `search.rerank.provider` names from
   * `rerankers`.
   */
  reranker?: Reranker | null;
  /**
   * Reranker drivers the config can name (`search.rerank.provider`), e.g.
   * `{ http: async () => (await import("@engram/rerank-http")).httpRerankerProvider }`.
   */
  rerankers?: RerankerRegistry;
  /**
   * The workspace's embedding cache when it lives in another store than `store` (the configured
   * one, while a sync builds another store's index): what `store` lacks is read from it, so no
   * text is embedded again.
   */
  cacheFrom?: KeyValueStore;
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
  /** Told once when this sync has waited a second for another process's (who, and its state). */
  onLockWait?: (wait: LockWait) => void;
}

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
  await ensureIndexDir(indexDir);
  // The index is a cache: keep it out of the workspace's version control.
  await writeFile(join(indexDir, ".gitignore"), "*\n", { flag: "wx" }).catch(() => {});
  const store =
    typeof options.store === "function"
      ? await options.store({ workspace, indexDir })
      : options.store;
  await store.init();
  const cache =
    config.cache.enabled && store.keyValue
      ? new EmbeddingCache(store.keyValue, {
          maxEntries: config.cache.maxEntries,
          fallback: options.cacheFrom ? new EmbeddingCache(options.cacheFrom) : undefined,
        })
      : undefined;
  const layout = resolveLayout(config);
  const given = options.embedder ?? [];
  const selection =
    options.embedder === undefined && options.providers
      ? await selectEmbedders(config.embedding, options.providers, options.env)
      : {
          embedders: Array.isArray(given) ? given : [given as Embedder],
          notes: [],
          warnings: [],
          // An embedder the caller passes is one they chose.
          explicit: options.embedder !== undefined && options.embedder !== null,
        };
  const chain = new EmbedderChain(selection.embedders, {
    retry: config.embedding.retry,
    circuit: config.embedding.circuit,
  });
  const [identityJson, savedHealth] = await Promise.all([
    store.getMeta(IDENTITY_META_KEY),
    store.getMeta(HEALTH_META_KEY),
  ]);
  restoreHealth(chain, savedHealth);
  const owner = indexProvider(chain, parseIdentity(identityJson)?.embedding, selection.explicit);
  const models = await WorkspaceModels.open({
    config,
    store,
    given: options.languageModel,
    registry: options.languageModels,
    env: options.env,
  });
  return new Memory({
    models,
    workspace,
    config,
    store,
    cache,
    analyzer: createAnalyzer(config.analyzer),
    embedder: owner.current ?? (owner.keep ? null : chain.primary),
    chain,
    explicitProvider: selection.explicit,
    providerNotes: selection.notes,
    warnings: selection.warnings,
    savedHealth: savedHealth ?? null,
    tierOf: createTierResolver(layout.tiers, config.defaultTier),
    clock: options.clock ?? systemClock,
    rerank: new RerankSlot({
      config: config.search.rerank,
      registry: options.rerankers,
      env: options.env,
      given: options.reranker,
      languageModel: () => models.chain,
    }),
    env: options.env ?? process.env,
  });
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
  /** True when the user named the provider (it may replace an index's vectors). */
  readonly #explicitProvider: boolean;
  readonly #providerNotes: string[];
  readonly #models: WorkspaceModels;
  /** The providers' health as last read from or written to the index (saved when it changes). */
  #savedHealth: string | null;
  /** The owed-vector paths as last read, by their stored JSON (parsed once per change). */
  #owed: { json: string | undefined; paths: ReadonlySet<string> } = {
    json: undefined,
    paths: new Set(),
  };
  /**
   * Problems found while opening that the host should show once, e.g. a provider named in the
   * config that cannot run (memory is written and searched by keywords meanwhile).
   */
  readonly warnings: readonly string[];
  readonly #ctx: IndexContext;
  readonly #clock: Clock;
  readonly #syncs: Coalescer<MemorySyncOptions, SyncReport | undefined>;
  /** Paths engram wrote since they were last indexed: indexed before the next search. */
  readonly #dirty = new DirtyPaths();
  readonly #watchers = new Set<Watcher>();
  #closed = false;
  #closing: Promise<void> | undefined;
  #layout: ResolvedLayout | undefined;
  /** Search hits and reads per short-term stretch: what promotion candidates are scored on. */
  readonly recall: RecallLog;
  /** The reranker, created on the first search that reranks; its outcomes are counted. */
  readonly #rerank: RerankSlot;
  /** The sealing key of this memory's environment, and sealed files opened for search. */
  readonly sealing: SealingSession;

  /** @internal Use {@link createMemory}. */
  constructor(
    parts: IndexContext & {
      clock: Clock;
      chain: EmbedderChain;
      embedder: ResilientEmbedder | null;
      explicitProvider?: boolean;
      providerNotes?: readonly string[];
      env?: Readonly<Record<string, string | undefined>>;
      warnings?: readonly string[];
      savedHealth?: string | null;
      rerank?: RerankSlot;
      models: WorkspaceModels;
    },
  ) {
    this.#rerank = parts.rerank ?? new RerankSlot({ config: parts.config.search.rerank });
    this.#models = parts.models;
    this.#providerNotes = [...(parts.providerNotes ?? [])];
    this.#explicitProvider = parts.explicitProvider ?? parts.embedder !== null;
    this.warnings = [...(parts.warnings ?? [])];
    this.#savedHealth = parts.savedHealth ?? null;
    this.workspace = parts.workspace;
    this.config = parts.config;
    this.store = parts.store;
    this.analyzer = parts.analyzer;
    this.embedders = parts.chain;
    this.#embedder = parts.embedder;
    this.#clock = parts.clock;
    this.#ctx = parts;
    this.recall = new RecallLog(parts.workspace, () => parts.clock.now());
    this.sealing = new SealingSession({ ...parts, env: parts.env ?? process.env });
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

  /**
   * Whether the index matches the files and the providers here, so that {@link sync} would change
   * nothing. Read from the index and the files' stats: no lock is taken, nothing is written and no
   * provider is called; any doubt (a rebuild due, vectors owed, this process's own writes not
   * indexed yet) answers false. A one-shot search asks it and syncs only when it answers false:
   * an unchanged workspace then costs a scan, not the sync lock and a write.
   */
  async upToDate(): Promise<boolean> {
    this.#assertOpen();
    if (this.#dirty.size > 0 || this.#syncs.busy) return false;
    // The index deleted, replaced or damaged since it was opened: a sync rebuilds it.
    if (await this.store.refresh?.()) return false;
    return syncWouldChangeNothing(this.#ctx, this.embedders, this.#explicitProvider);
  }

  /** The provider the index is (or will next be) embedded with; null: keyword search only. */
  get embedder(): Embedder | null {
    return this.#embedder;
  }

  /**
   * The configured language models as one chain (retries, circuit breakers, fallback, token
   * accounting; `run({ maxTokens })` for a capped run), or null when none is configured.
   */
  get languageModel(): WorkspaceModels["chain"] {
    return this.#models.chain;
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
      // The index may have been deleted, replaced or damaged since: then this sync rebuilds it.
      await this.store.refresh?.();
      const report = await retryRefreshed(this.store, () => this.#syncWithFallback(options));
      this.#dirty.settle(started, options.paths);
      const recovered = await takeRecoveries(this.store);
      if (recovered.length) {
        report.warnings.push(...recovered);
        report.recovered = recovered;
      }
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
      ...(options.onLockWait ? { onWait: options.onLockWait } : {}),
    });
  }

  /**
   * What a sync would index and send to the embedding provider (chunks, estimated tokens, cache
   * hits), without writing anything or calling the provider: the cost guard's dry run.
   */
  async estimateSync(): Promise<SyncEstimate> {
    this.#assertOpen();
    const stored = parseIdentity(await this.store.getMeta(IDENTITY_META_KEY))?.embedding;
    const owner = indexProvider(this.embedders, stored, this.#explicitProvider);
    if (owner.keep) return estimateSync({ ...this.#ctx, embedder: null, vectors: owner.stored });
    const current = this.#embedder;
    const embedder = current?.breaker.allows()
      ? current
      : (this.embedders.available()[0] ?? current);
    return estimateSync({ ...this.#ctx, embedder });
  }

  async #syncWithFallback(options: MemorySyncOptions): Promise<SyncReport> {
    try {
      const { report, embedder } = await syncWithProviders(
        this.#ctx,
        this.embedders,
        options,
        this.#explicitProvider,
      );
      this.#embedder = embedder;
      return report;
    } finally {
      await this.#saveHealth();
    }
  }

  /** Persist the providers' circuits when they changed, so the next process knows a pause. */
  async #saveHealth(): Promise<void> {
    if (!this.embedders.members.length) return;
    const json = healthJson(this.embedders);
    if (json === this.#savedHealth) return;
    await this.store.setMeta(HEALTH_META_KEY, json);
    this.#savedHealth = json;
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
    if (await this.store.refresh?.()) await this.sync({ wait: false });
    // What this process wrote is found: wait a little for another process's sync (its lock), but
    // never fail or hang a search over it.
    if (this.#dirty.size) {
      await this.sync({ paths: this.#dirty.paths(), lockTimeoutMs: OWN_WRITES_WAIT_MS }).catch(
        (error: unknown) => {
          if (!isEngramError(error, "LOCK_TIMEOUT")) throw error;
        },
      );
    }
    // Identity, owed vectors and the last sync (for the sealing lookup): one read of the store.
    const meta = await readMetas(this.store, SEARCH_META_KEYS);
    // The query is embedded by the provider whose vectors the index holds, never another one.
    const stored = parseIdentity(meta.get(IDENTITY_META_KEY))?.embedding ?? null;
    const embedder = stored ? (this.embedders.find(stored) ?? null) : this.#embedder;
    const owed = this.#owedPaths(meta.get(PENDING_VECTORS_META_KEY));
    const relevance = await searchRelevance(this.workspace, this.config, options, this.#clock);
    // Sealed files: searched from memory in the main scope with the key, else counted as skipped.
    const sealed = await this.sealing.forSearch(
      withMetaValues(this.store, SEARCH_META_KEYS, meta),
      options.scope ?? "main",
    );
    const run = async (opts: SearchOptions) => {
      try {
        const response = await search(
          {
            store: sealed.store,
            analyzer: this.analyzer,
            embedder,
            fallback: this.embedders.isFallback(embedder),
            indexed: stored,
            owed,
            ...(stored && !embedder ? { noVectorsReason: missingProviderReason(stored) } : {}),
            ...(relevance ? { relevance } : {}),
            reranker: () => this.#rerank.get(),
            rerankView: (chunks) =>
              modelView(chunks, {
                workspace: this.workspace,
                maxBytes: this.config.sync.maxFileBytes,
                includePrivate: this.config.search.rerank.includePrivate,
              }),
            config: this.config.search,
          },
          query,
          opts,
        );
        if (opts.recordRecall !== false) {
          this.recall.noteSearch(query, response.results, {
            keepText: !response.results.some((r) => sealed.paths.has(r.path)),
          });
        }
        if (response.rerank) {
          await this.#rerank
            .note(this.store, response.rerank, this.#clock.now())
            .catch(() => undefined);
        }
        return this.sealing.annotate(response, sealed.info);
      } finally {
        // A provider that failed (or recovered) during the query: the next process knows.
        // Best effort: a search must answer even when another process holds the write lock.
        if (embedder) await this.#saveHealth().catch(() => undefined);
      }
    };
    // A store found damaged while searching is rebuilt (synced) and asked again, once.
    const ask = (opts: SearchOptions) =>
      retryRefreshed(
        this.store,
        () => run(opts),
        () => this.sync({ wait: false }),
      );
    if (options.scope !== "group") return ask(options);
    return searchGroupScope(ask, options, {
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
    const date = options.date ?? localDate(this.#clock.now());
    const result = await appendThroughSealing(
      this,
      dailyLogPath(date, this.layout.dailyLogDir),
      () =>
        appendDailyLog(this.workspace, text, {
          clock: this.#clock,
          dir: this.layout.dailyLogDir,
          ...(options.date !== undefined ? { date: options.date } : {}),
        }),
    );
    this.#dirty.mark(result.path);
    return result;
  }

  /**
   * Append an entry under a timestamp heading to the layout's long-term file (`MEMORY.md`, or
   * `memory/long-term.md` for the `logs` layout), or to `file`. Never rewrites the file.
   */
  async appendLongTerm(text: string, options: { file?: string } = {}): Promise<AppendResult> {
    this.#assertOpen();
    const file = options.file ?? this.layout.longTermFile;
    const result = await appendThroughSealing(this, file, () =>
      appendLongTerm(this.workspace, text, { clock: this.#clock, file }),
    );
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

  #owedPaths(json: string | undefined): ReadonlySet<string> {
    if (json !== this.#owed.json) this.#owed = { json, paths: new Set(parsePendingPaths(json)) };
    return this.#owed.paths;
  }

  /** Index size, provider, identity, pending changes and the last sync. */
  async status(): Promise<MemoryStatus> {
    this.#assertOpen();
    await this.store.refresh?.();
    const [status, rerank] = await retryRefreshed(this.store, () =>
      Promise.all([
        buildStatus({
          ...this.#ctx,
          chain: this.embedders,
          embedder: this.#embedder,
          explicitProvider: this.#explicitProvider,
          providerNotes: this.#providerNotes,
          warnings: this.warnings,
          models: this.#models,
        }),
        this.#rerank.status(this.store),
      ]),
    );
    return { ...status, rerank };
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

  /**
   * Stop watchers, wait for a sync in flight, index what this process wrote (waiting up to 15 s for
   * another process's sync), close the store and the embedder. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await Promise.all([...this.#watchers].map((w) => w.close()));
    await this.#syncs.settled();
    // What this process wrote is indexed before it lets go, even when another process held the
    // sync lock at the time of the write (the files keep it regardless; this keeps the index fresh).
    if (this.#dirty.size) {
      await this.sync({ paths: this.#dirty.paths(), lockTimeoutMs: CLOSE_SYNC_TIMEOUT_MS }).catch(
        () => undefined,
      );
    }
    this.#closed = true;
    await this.recall.flush();
    await this.#models.close();
    await this.store.close();
    await this.embedders.close();
    await this.#rerank.close();
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new EngramError("CLOSED", "this memory is closed", {
        hint: "open it again with createMemory",
      });
    }
  }
}

/** Longest a search waits for another process's sync to index this process's own writes first. */
const OWN_WRITES_WAIT_MS = 3_000;

/** How long `close()` waits for another process's sync before leaving its writes to the next one. */
const CLOSE_SYNC_TIMEOUT_MS = 15_000;

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

/**
 * Run `fn`; when it fails and the store then reports it reopened or replaced its storage (it was
 * deleted, replaced or found damaged), run `before` (e.g. a sync) and `fn` once more.
 */
async function retryRefreshed<T>(
  store: MemoryStore,
  fn: () => Promise<T>,
  before?: () => Promise<unknown>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(await store.refresh?.().catch(() => false))) throw error;
    await before?.();
    return fn();
  }
}
