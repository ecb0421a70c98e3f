import { embedTexts, type TokenBudget } from "../embedding/embed-texts.js";
import {
  describeEmbedding,
  IDENTITY_META_KEY,
  identityChanges,
  indexIdentity,
  parseIdentity,
  serializeIdentity,
} from "../embedding/identity.js";
import { isProviderFailure } from "../embedding/resilient.js";
import { type EngramError, isEngramError } from "../errors.js";
import type { StoreBatch } from "../store/records.js";
import type { IndexContext } from "./context.js";
import { planSync } from "./plan.js";
import { readChanged } from "./read-changed.js";
import {
  CACHE_STATS_META_KEY,
  LAST_SYNC_META_KEY,
  PENDING_VECTORS_META_KEY,
  parseCacheStats,
  parsePendingPaths,
  type SyncProgress,
  type SyncReport,
} from "./report.js";

/** Longest stretch of synchronous indexing work between two turns of the event loop. */
const YIELD_EVERY_MS = 20;

/** Options of one sync. */
export interface SyncOptions {
  /** Rebuild the index from scratch. */
  force?: boolean;
  /** Only these index paths (workspace-relative); used after engram's own writes. */
  paths?: readonly string[];
  onProgress?: (progress: SyncProgress) => void;
  signal?: AbortSignal;
  /**
   * Estimated tokens this sync may send to the embedding provider (the cost guard). When the next
   * request would exceed it, the remaining files are indexed for keyword search and their vectors
   * are owed to the next sync. Default: `embedding.maxTokensPerSync` from the config, else no limit.
   */
  maxTokens?: number;
}

/** @internal How {@link runSync} reacts when the provider fails. */
export interface RunSyncOptions extends SyncOptions {
  /**
   * `pending` (default): index the rest for keyword search and owe their vectors to the next sync.
   * `abort`: stop at once, writing nothing more (a fallback provider will take over).
   */
  onEmbeddingFailure?: "pending" | "abort";
  /** True when `ctx.embedder` is a fallback provider (reported). */
  fallbackUsed?: boolean;
}

/** @internal Thrown by {@link runSync} in `abort` mode when the provider failed. */
export class EmbeddingAborted extends Error {
  constructor(readonly reason: unknown) {
    super(`embedding failed: ${(reason as Error)?.message ?? String(reason)}`);
  }
}

/**
 * Bring the index in line with the files: rebuild if the index identity changed, then scan →
 * diff by mtime/size → read + hash what changed → chunk → embed (cache first) → write.
 *
 * Writes go in batches, each one store transaction holding whole files (a file record is never
 * written without its chunks), so a sync killed midway leaves a consistent index and the next
 * sync finishes the job. The caller holds the workspace's sync lock.
 */
export async function runSync(
  ctx: IndexContext,
  options: RunSyncOptions = {},
): Promise<SyncReport> {
  const started = performance.now();
  const { store, config } = ctx;
  const progress = options.onProgress ?? (() => {});
  progress({ phase: "scan", done: 0, total: 0 });

  const wanted = indexIdentity({
    analyzer: ctx.analyzer.id,
    chunking: config.chunking,
    embedder: ctx.embedder,
  });
  const stored = parseIdentity(await store.getMeta(IDENTITY_META_KEY));
  const rebuildReasons = options.force ? ["forced"] : identityChanges(stored, wanted);
  const rebuilt = rebuildReasons.length > 0;
  if (rebuilt) {
    await store.reset({ dims: wanted.embedding?.dims ?? null });
    await store.setMeta(PENDING_VECTORS_META_KEY, "[]");
    await store.setMeta(IDENTITY_META_KEY, serializeIdentity(wanted));
  }
  const pending = new Set(
    ctx.embedder ? parsePendingPaths(await store.getMeta(PENDING_VECTORS_META_KEY)) : [],
  );
  const savePending = () => store.setMeta(PENDING_VECTORS_META_KEY, JSON.stringify([...pending]));

  const plan = await planSync(ctx, {
    paths: rebuilt ? undefined : options.paths,
    redo: pending,
  });
  const report: SyncReport = {
    rebuilt,
    rebuildReasons,
    files: plan.changed.length + plan.unchanged,
    added: 0,
    updated: 0,
    touched: 0,
    unchanged: plan.unchanged,
    removed: plan.removed.length,
    deferred: plan.deferred.length,
    skipped: [],
    chunks: 0,
    embedding: {
      provider: describeEmbedding(wanted.embedding),
      fallbackUsed: Boolean(options.fallbackUsed),
      cacheHits: 0,
      embedded: 0,
      requests: 0,
      tokens: 0,
      pendingFiles: 0,
    },
    warnings: [...plan.warnings],
    durationMs: 0,
    finishedAt: "",
  };

  const maxTokens = options.maxTokens ?? config.embedding.maxTokensPerSync;
  const budget: TokenBudget | undefined =
    maxTokens !== undefined ? { remaining: maxTokens } : undefined;
  let stopped: unknown;
  let batch: Required<StoreBatch> = { upserts: [], deletes: [...plan.removed], touches: [] };
  let pendingChunks = 0;
  const flush = async () => {
    if (!batch.upserts.length && !batch.deletes.length && !batch.touches.length) return;
    const before = pending.size;
    for (const path of batch.deletes) pending.delete(path);
    if (ctx.embedder && batch.upserts.length) {
      if (stopped === undefined) {
        try {
          await embedBatch(ctx, batch.upserts, report, options.signal, budget);
        } catch (error) {
          const overBudget = isEngramError(error, "EMBEDDING_BUDGET");
          if (!overBudget && !isProviderFailure(error)) throw error;
          if (!overBudget && options.onEmbeddingFailure === "abort") {
            throw new EmbeddingAborted(error);
          }
          stopped = error;
          report.embedding.stopped = {
            code: (error as EngramError).code,
            message: (error as Error).message,
          };
        }
      }
      if (stopped !== undefined) {
        // Keyword search gets these files now; their vectors are owed to the next sync. The debt
        // is recorded before the write, so a crash in between can only cause extra work.
        for (const upsert of batch.upserts) {
          for (const chunk of upsert.chunks) chunk.embedding = null;
          pending.add(upsert.file.path);
        }
        await savePending();
      }
    }
    await store.write(batch);
    if (stopped === undefined) for (const upsert of batch.upserts) pending.delete(upsert.file.path);
    if (pending.size !== before || (stopped === undefined && batch.upserts.length && before)) {
      await savePending();
    }
    batch = { upserts: [], deletes: [], touches: [] };
    pendingChunks = 0;
  };

  const total = plan.changed.length;
  let done = 0;
  let slice = performance.now();
  for (const file of plan.changed) {
    // Reading, chunking and writing are synchronous: give the event loop a turn every ~20 ms so a
    // long sync never freezes the process it runs in (an agent, a watcher, a server).
    if (performance.now() - slice > YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    options.signal?.throwIfAborted();
    const outcome = await readChanged(
      ctx,
      file,
      pending.has(file.path) ? undefined : plan.known.get(file.path),
      config.sync.maxFileBytes,
    );
    if (outcome.kind === "skipped") report.skipped.push(outcome.skipped);
    else if (outcome.kind === "gone") {
      if (plan.known.has(file.path)) {
        batch.deletes.push(file.path);
        report.removed++;
      }
      report.files--;
    } else if (outcome.kind === "touch") {
      batch.touches.push(outcome.record);
      report.touched++;
    } else {
      if (outcome.warnings) report.warnings.push(...outcome.warnings);
      batch.upserts.push({ file: outcome.record, chunks: outcome.chunks });
      pendingChunks += outcome.chunks.length;
      report.chunks += outcome.chunks.length;
      if (plan.known.has(file.path)) report.updated++;
      else report.added++;
    }
    done++;
    progress({ phase: "index", done, total, path: file.path });
    if (pendingChunks >= config.sync.batchChunks) await flush();
  }
  await flush();
  report.embedding.pendingFiles = pending.size;
  const lookups = report.embedding.cacheHits + report.embedding.embedded;
  if (lookups > 0) {
    const seen = parseCacheStats(await store.getMeta(CACHE_STATS_META_KEY));
    seen.hits += report.embedding.cacheHits;
    seen.misses += report.embedding.embedded;
    await store.setMeta(CACHE_STATS_META_KEY, JSON.stringify(seen));
  }

  if (store.cache && config.cache.enabled && report.embedding.embedded > 0) {
    await store.cache.prune(config.cache.maxEntries);
  }
  report.durationMs = Math.round(performance.now() - started);
  report.finishedAt = new Date().toISOString();
  await store.setMeta(LAST_SYNC_META_KEY, JSON.stringify(report));
  progress({ phase: "done", done, total });
  return report;
}

async function embedBatch(
  ctx: IndexContext,
  upserts: StoreBatch["upserts"] & object,
  report: SyncReport,
  signal: AbortSignal | undefined,
  budget: TokenBudget | undefined,
): Promise<void> {
  const embedder = ctx.embedder;
  if (!embedder) return;
  const chunks = upserts.flatMap((u) => u.chunks);
  if (!chunks.length) return;
  const cache = ctx.config.cache.enabled ? ctx.store.cache : undefined;
  // Stats accumulate into the report as batches finish, so a failure midway is still counted.
  const { vectors } = await embedTexts(chunks, embedder, {
    cache,
    signal,
    budget,
    stats: report.embedding,
  });
  chunks.forEach((chunk, i) => {
    chunk.embedding = vectors[i] ?? null;
  });
}
