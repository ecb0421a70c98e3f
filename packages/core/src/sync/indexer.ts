import { embedTexts } from "../embedding/embed-texts.js";
import {
  IDENTITY_META_KEY,
  identityChanges,
  indexIdentity,
  parseIdentity,
  serializeIdentity,
} from "../embedding/identity.js";
import { isEngramError } from "../errors.js";
import type { ChunkRecord, FileRecord, StoreBatch } from "../store/records.js";
import { sha256Hex } from "../text/hash.js";
import { readUtf8 } from "../workspace/read.js";
import type { ScannedFile } from "../workspace/scan.js";
import { chunkRecords } from "./chunk-records.js";
import type { IndexContext } from "./context.js";
import { planSync } from "./plan.js";
import { LAST_SYNC_META_KEY, type SyncProgress, type SyncReport } from "./report.js";

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
}

/**
 * Bring the index in line with the files: rebuild if the index identity changed, then scan →
 * diff by mtime/size → read + hash what changed → chunk → embed (cache first) → write.
 *
 * Writes go in batches, each one store transaction holding whole files (a file record is never
 * written without its chunks), so a sync killed midway leaves a consistent index and the next
 * sync finishes the job. The caller holds the workspace's sync lock.
 */
export async function runSync(ctx: IndexContext, options: SyncOptions = {}): Promise<SyncReport> {
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
    await store.setMeta(IDENTITY_META_KEY, serializeIdentity(wanted));
  }

  const plan = await planSync(ctx, { paths: rebuilt ? undefined : options.paths });
  const report: SyncReport = {
    rebuilt,
    rebuildReasons,
    files: plan.changed.length + plan.unchanged,
    added: 0,
    updated: 0,
    touched: 0,
    unchanged: plan.unchanged,
    removed: plan.removed.length,
    skipped: [],
    chunks: 0,
    embedding: { cacheHits: 0, embedded: 0, requests: 0, tokens: 0 },
    warnings: [...plan.warnings],
    durationMs: 0,
    finishedAt: "",
  };

  let batch: Required<StoreBatch> = { upserts: [], deletes: [...plan.removed], touches: [] };
  let pendingChunks = 0;
  const flush = async () => {
    if (!batch.upserts.length && !batch.deletes.length && !batch.touches.length) return;
    if (ctx.embedder) await embedBatch(ctx, batch.upserts, report, options.signal);
    await store.write(batch);
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
      plan.known.get(file.path),
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

  if (store.cache && config.cache.enabled && report.embedding.embedded > 0) {
    await store.cache.prune(config.cache.maxEntries);
  }
  report.durationMs = Math.round(performance.now() - started);
  report.finishedAt = new Date().toISOString();
  await store.setMeta(LAST_SYNC_META_KEY, JSON.stringify(report));
  progress({ phase: "done", done, total });
  return report;
}

type ReadOutcome =
  | { kind: "index"; record: FileRecord; chunks: ChunkRecord[] }
  | { kind: "touch"; record: FileRecord }
  | { kind: "skipped"; skipped: SyncReport["skipped"][number] }
  | { kind: "gone" };

async function readChanged(
  ctx: IndexContext,
  file: ScannedFile,
  known: FileRecord | undefined,
  maxBytes: number,
): Promise<ReadOutcome> {
  let text: string;
  let bytes: Buffer;
  try {
    ({ text, bytes } = await readUtf8(file.absPath, { maxBytes }));
  } catch (error) {
    if (isEngramError(error)) {
      return {
        kind: "skipped",
        skipped: { path: file.path, code: error.code, reason: error.describe() },
      };
    }
    const code = (error as NodeJS.ErrnoException).code ?? "READ_FAILED";
    if (code === "ENOENT") return { kind: "gone" };
    return {
      kind: "skipped",
      skipped: { path: file.path, code, reason: (error as Error).message },
    };
  }
  const record: FileRecord = {
    path: file.path,
    source: "memory",
    tier: ctx.tierOf(file.path),
    hash: sha256Hex(bytes),
    mtimeMs: file.mtimeMs,
    size: file.size,
  };
  if (known && known.hash === record.hash && known.tier === record.tier) {
    return { kind: "touch", record };
  }
  return {
    kind: "index",
    record,
    chunks: chunkRecords(record, text, ctx.analyzer, ctx.config.chunking),
  };
}

async function embedBatch(
  ctx: IndexContext,
  upserts: StoreBatch["upserts"] & object,
  report: SyncReport,
  signal: AbortSignal | undefined,
): Promise<void> {
  const embedder = ctx.embedder;
  if (!embedder) return;
  const chunks = upserts.flatMap((u) => u.chunks);
  if (!chunks.length) return;
  const cache = ctx.config.cache.enabled ? ctx.store.cache : undefined;
  const { vectors, stats } = await embedTexts(chunks, embedder, { cache, signal });
  chunks.forEach((chunk, i) => {
    chunk.embedding = vectors[i] ?? null;
  });
  report.embedding.cacheHits += stats.cacheHits;
  report.embedding.embedded += stats.embedded;
  report.embedding.requests += stats.requests;
  report.embedding.tokens += stats.tokens;
}
