import { lstat } from "node:fs/promises";
import type { FileRecord, StoreBatch } from "../driver/records.js";
import { cacheKeyOf, embedTexts, type TokenBudget } from "../embedding/embed-texts.js";
import type { Embedder } from "../embedding/embedder.js";
import {
  describeEmbedding,
  type EmbeddingIdentity,
  IDENTITY_META_KEY,
  identityChanges,
  indexIdentity,
  onlyVectorsDiffer,
  parseIdentity,
  serializeIdentity,
} from "../embedding/identity.js";
import {
  isProviderFailure,
  type ProviderStats,
  ResilientEmbedder,
} from "../embedding/resilient.js";
import { type EngramError, isEngramError } from "../errors.js";
import { SEALED_SOURCE } from "../sealing/session.js";
import { SESSIONS_SOURCE } from "../sessions/scan.js";
import { type IndexContext, targetVectors } from "./context.js";
import type { PlannedFile } from "./plan.js";
import { planSync } from "./plan.js";
import { readChanged } from "./read-changed.js";
import {
  CACHE_LIMIT_META_KEY,
  CACHE_STATS_META_KEY,
  LAST_SYNC_META_KEY,
  PENDING_VECTORS_META_KEY,
  parseCacheStats,
  parsePendingPaths,
  type SyncEmbeddingReport,
  type SyncProgress,
  type SyncReport,
} from "./report.js";
import { stageVectors, switchVectors } from "./vector-switch.js";

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
  /** A token allowance already partly spent by this sync (internal: a resumed sync shares it). */
  budget?: TokenBudget;
  /** How many follow-up passes led here (internal, see {@link MAX_FOLLOW_UPS}). */
  followUps?: number;
}

/** Most extra passes a sync makes over files that changed while it read them. */
const MAX_FOLLOW_UPS = 3;

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

  const target = targetVectors(ctx);
  const wanted = indexIdentity({
    analyzer: ctx.analyzer.id,
    chunking: config.chunking,
    embedding: target,
  });
  const stored = parseIdentity(await store.getMeta(IDENTITY_META_KEY));
  const maxTokens = options.maxTokens ?? config.embedding.maxTokensPerSync;
  const budget: TokenBudget | undefined =
    options.budget ?? (maxTokens !== undefined ? { remaining: maxTokens } : undefined);
  const providerStats = statsOf(ctx.embedder);
  const embedding: SyncEmbeddingReport = {
    provider: describeEmbedding(wanted.embedding),
    fallbackUsed: Boolean(options.fallbackUsed),
    cacheHits: 0,
    embedded: 0,
    requests: 0,
    tokens: 0,
    pendingFiles: 0,
  };
  let rebuildReasons = options.force ? ["forced"] : identityChanges(stored, wanted);
  const pending = new Set(
    stored?.embedding ? parsePendingPaths(await store.getMeta(PENDING_VECTORS_META_KEY)) : [],
  );
  let vectorSwitch: SyncReport["vectorSwitch"];
  if (rebuildReasons.length && !options.force && stored && onlyVectorsDiffer(stored, wanted)) {
    // Only the vectors change (another provider or model): the keyword index stays, the new
    // vectors are paid for first (into the cache), and the index switches when all are there.
    const from = describeEmbedding(stored.embedding);
    const staging = { cacheHits: 0, embedded: 0, requests: 0, tokens: 0 };
    const staged =
      ctx.embedder && target && ctx.cache
        ? await stageVectors(ctx, ctx.embedder, {
            signal: options.signal,
            budget,
            stats: staging,
            isFailure: (error) =>
              isEngramError(error, "EMBEDDING_BUDGET") || isProviderFailure(error),
          })
        : { staged: 0, total: 0 };
    const failed = staged.stopped !== undefined && isProviderFailure(staged.stopped);
    // A fallback provider takes over from one that failed, as during any other sync.
    if (failed && options.onEmbeddingFailure === "abort")
      throw new EmbeddingAborted(staged.stopped);
    embedding.embedded += staging.embedded;
    embedding.tokens += staging.tokens;
    embedding.requests += staging.requests;
    vectorSwitch = {
      from,
      to: embedding.provider,
      staged: staged.staged,
      total: staged.total,
      switched: staged.stopped === undefined,
    };
    if (staged.stopped !== undefined) {
      // Not all new vectors are paid for yet: keep the old ones (and the old identity) for now.
      const report = await runSync(
        { ...ctx, embedder: null, vectors: stored.embedding },
        { ...options, budget },
      );
      report.vectorSwitch = vectorSwitch;
      report.embedding.stopped = describeStop(staged.stopped);
      report.embedding.requests += embedding.requests;
      report.embedding.tokens += embedding.tokens;
      report.embedding.embedded += embedding.embedded;
      report.warnings.push(
        `switching vectors ${from} → ${embedding.provider}: ${staged.staged} of ${staged.total} chunks embedded; the index keeps ${from} until the rest are (the next sync continues): ${describeStop(staged.stopped).message}`,
      );
      await store.setMeta(LAST_SYNC_META_KEY, JSON.stringify(report));
      return report;
    }
    vectorSwitch.keptKeywordIndex = await switchVectors(store, wanted, pending);
    rebuildReasons = vectorSwitch.keptKeywordIndex ? [] : rebuildReasons;
  } else if (rebuildReasons.length) {
    await store.reset({ dims: wanted.embedding?.dims ?? null });
    pending.clear();
    await store.setMeta(PENDING_VECTORS_META_KEY, "[]");
    await store.setMeta(IDENTITY_META_KEY, serializeIdentity(wanted));
  }
  const rebuilt = rebuildReasons.length > 0;
  if (!target) pending.clear();
  const savePending = () => store.setMeta(PENDING_VECTORS_META_KEY, JSON.stringify([...pending]));

  const plan = await planSync(ctx, {
    paths: rebuilt || vectorSwitch ? undefined : options.paths,
    redo: pending,
  });
  // The sealed files the index holds, carried from the last report while no sealed record is
  // written or removed (counted again otherwise: a search reads the count, see `sealedFiles`).
  const lastReport = await store.getMeta(LAST_SYNC_META_KEY);
  const previousSealed = rebuilt ? undefined : lastSealedFiles(lastReport);
  const sealing = {
    changed: plan.removed.some((path) => isSealed(plan.known.get(path))),
    // The stored report says there is none: it must not while this sync writes one (a sync that
    // fails midway leaves that report in place).
    claimsNone: lastSealedFiles(lastReport) === 0,
  };
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
    embedding,
    warnings: [...plan.warnings],
    durationMs: 0,
    finishedAt: "",
    ...(vectorSwitch ? { vectorSwitch } : {}),
  };

  let stopped: unknown;
  /** Vectors owed because nobody in this process makes the index's vectors. */
  let owedNoProvider = false;
  let batch: Required<StoreBatch> = { upserts: [], deletes: [...plan.removed], touches: [] };
  let pendingChunks = 0;
  const flush = async () => {
    if (!batch.upserts.length && !batch.deletes.length && !batch.touches.length) return;
    let debtChanged = false;
    const settle = (path: string) => {
      if (pending.delete(path)) debtChanged = true;
    };
    for (const path of batch.deletes) settle(path);
    if (target && batch.upserts.length) {
      let owed = false;
      if (!ctx.embedder) {
        // Nobody here makes these vectors: take what the cache holds, owe the rest.
        owed = !(await vectorsFromCache(ctx, target, batch.upserts, report));
        owedNoProvider ||= owed;
      } else if (stopped === undefined) {
        try {
          await embedBatch(ctx, batch.upserts, report, options.signal, budget);
        } catch (error) {
          const overBudget = isEngramError(error, "EMBEDDING_BUDGET");
          if (!overBudget && !isProviderFailure(error)) throw error;
          if (!overBudget && options.onEmbeddingFailure === "abort") {
            throw new EmbeddingAborted(error);
          }
          stopped = error;
          report.embedding.stopped = describeStop(error);
        }
      }
      if (owed || stopped !== undefined) {
        // Keyword search gets these files now; their vectors are owed to the next sync. The debt
        // is recorded before the write, so a crash in between can only cause extra work.
        for (const upsert of batch.upserts) {
          if (upsert.chunks.every((chunk) => chunk.embedding)) continue;
          for (const chunk of upsert.chunks) chunk.embedding = null;
          if (!pending.has(upsert.file.path)) {
            pending.add(upsert.file.path);
            debtChanged = true;
          }
        }
        if (debtChanged) await savePending();
      }
    }
    await store.write(batch);
    for (const upsert of batch.upserts) {
      if (!target || upsert.chunks.every((chunk) => chunk.embedding)) settle(upsert.file.path);
    }
    if (debtChanged) await savePending();
    batch = { upserts: [], deletes: [], touches: [] };
    pendingChunks = 0;
  };

  /** Memory files read by this sync, with the stats it recorded for them. */
  const written: PlannedFile[] = [];
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
    if ("record" in outcome && isSealed(outcome.record)) {
      sealing.changed = true;
      if (sealing.claimsNone && lastReport !== undefined) {
        await store.setMeta(LAST_SYNC_META_KEY, withoutSealedCount(lastReport));
        sealing.claimsNone = false;
      }
    } else if (isSealed(plan.known.get(file.path))) {
      sealing.changed = true;
    }
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
      if (outcome.record.source !== SESSIONS_SOURCE) written.push(file);
    } else {
      if (outcome.record.source !== SESSIONS_SOURCE) written.push(file);
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
  // A file written while this sync read it (another process appending) is read again before the
  // sync ends, so the lock is never released over an index older than the files it indexed.
  const followUps = options.followUps ?? 0;
  const moved = followUps < MAX_FOLLOW_UPS ? await movedSince(written) : [];
  if (moved.length) {
    const again = await runSync(ctx, {
      ...options,
      force: false,
      paths: moved,
      budget,
      followUps: followUps + 1,
      onProgress: undefined,
    });
    mergeFollowUp(report, again);
  }
  report.embedding.pendingFiles = moved.length
    ? parsePendingPaths(await store.getMeta(PENDING_VECTORS_META_KEY)).length
    : pending.size;
  if (providerStats) {
    // Every request the provider received, retries and failed attempts included.
    const after = statsOf(ctx.embedder);
    report.embedding.requests = (after?.requests ?? 0) - providerStats.requests;
    report.embedding.retries = (after?.retries ?? 0) - providerStats.retries;
    report.embedding.failures = (after?.failures ?? 0) - providerStats.failures;
  }
  if (stopped !== undefined) {
    report.warnings.push(
      `embedding stopped: ${(stopped as Error).message}; ${pending.size} file(s) owe their vectors to the next sync`,
    );
  } else if (report.embedding.retries) {
    report.warnings.push(
      `the embedding provider failed ${report.embedding.retries} time(s) and was retried`,
    );
  }
  if (owedNoProvider && target) {
    report.warnings.push(
      `the index holds ${describeEmbedding(target)} vectors and no such provider is available here: ${pending.size} file(s) are searchable by keywords and owe their vectors (see engram status)`,
    );
  }
  const lookups = report.embedding.cacheHits + report.embedding.embedded;
  if (lookups > 0) {
    const seen = parseCacheStats(await store.getMeta(CACHE_STATS_META_KEY));
    seen.hits += report.embedding.cacheHits;
    seen.misses += report.embedding.embedded;
    await store.setMeta(CACHE_STATS_META_KEY, JSON.stringify(seen));
  }

  if (ctx.cache) {
    // Prune after embedding, and whenever the cache may hold more than the config now allows:
    // its limit went down since it was last kept within one. (Counting it costs ~70 ms at 25k
    // entries in SQLite, a query or request elsewhere: not for every sync that embeds nothing.)
    const limit = config.cache.maxEntries;
    const keptWithin = Number(await store.getMeta(CACHE_LIMIT_META_KEY));
    const lowered = !(keptWithin <= limit);
    if (report.embedding.embedded > 0 || (lowered && (await ctx.cache.size()) > limit)) {
      await ctx.cache.prune(limit);
    }
    if (keptWithin !== limit) await store.setMeta(CACHE_LIMIT_META_KEY, String(limit));
  }
  report.sealedFiles =
    sealing.changed || previousSealed === undefined || moved.length
      ? (await store.listFiles({ source: SEALED_SOURCE })).length
      : previousSealed;
  report.durationMs = Math.round(performance.now() - started);
  report.finishedAt = new Date().toISOString();
  await store.setMeta(LAST_SYNC_META_KEY, JSON.stringify(report));
  progress({ phase: "done", done, total });
  return report;
}

/** The files whose size or mtime moved since the sync recorded them (or that are gone). */
async function movedSince(files: readonly PlannedFile[]): Promise<string[]> {
  const moved: string[] = [];
  for (const file of files) {
    const now = await lstat(file.absPath).catch(() => undefined);
    if (!now || Math.floor(now.mtimeMs) !== file.mtimeMs || now.size !== file.size) {
      moved.push(file.path);
    }
  }
  return moved;
}

/** Add a follow-up pass's work to the sync's report. */
function isSealed(record: FileRecord | undefined): boolean {
  return record?.source === SEALED_SOURCE;
}

/** `sealedFiles` of a stored sync report, when it has one. */
function lastSealedFiles(json: string | undefined): number | undefined {
  if (json === undefined) return undefined;
  try {
    const count = (JSON.parse(json) as Partial<SyncReport>).sealedFiles;
    return typeof count === "number" ? count : undefined;
  } catch {
    return undefined;
  }
}

/** A stored sync report without its `sealedFiles` (a search then lists the sealed files). */
function withoutSealedCount(json: string): string {
  const { sealedFiles: _count, ...rest } = JSON.parse(json) as Partial<SyncReport>;
  return JSON.stringify(rest);
}

function mergeFollowUp(report: SyncReport, again: SyncReport): void {
  report.added += again.added;
  report.updated += again.updated;
  report.touched += again.touched;
  report.removed += again.removed;
  report.files -= again.removed;
  report.chunks += again.chunks;
  report.skipped.push(...again.skipped);
  report.warnings.push(...again.warnings);
  const e = report.embedding;
  const f = again.embedding;
  e.cacheHits += f.cacheHits;
  e.embedded += f.embedded;
  e.tokens += f.tokens;
  e.stopped ??= f.stopped;
}

function describeStop(error: unknown): { code: string; message: string } {
  return {
    code: (error as EngramError).code ?? "EMBEDDING_FAILED",
    message: (error as Error).message ?? String(error),
  };
}

function statsOf(embedder: Embedder | null): ProviderStats | undefined {
  return embedder instanceof ResilientEmbedder ? { ...embedder.stats } : undefined;
}

/**
 * Fill the chunks' vectors of `target` from the embedding cache, without a provider (a process that
 * lacks the index's provider keeps the vectors it can). True when every chunk got one.
 */
async function vectorsFromCache(
  ctx: IndexContext,
  target: EmbeddingIdentity,
  upserts: StoreBatch["upserts"] & object,
  report: SyncReport,
): Promise<boolean> {
  const cache = ctx.cache;
  const chunks = upserts.flatMap((u) => u.chunks);
  if (!cache || !chunks.length) return !chunks.length;
  const keys = chunks.map((chunk) => cacheKeyOf(target, chunk.hash));
  const found = await cache.get([...new Set(keys)]);
  let all = true;
  chunks.forEach((chunk, i) => {
    const vector = found.get(keys[i] as string);
    if (vector && vector.length === target.dims) {
      chunk.embedding = vector;
      report.embedding.cacheHits++;
    } else all = false;
  });
  return all;
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
  const cache = ctx.cache;
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
