import { embeddingCacheKey } from "../embedding/embed-texts.js";
import {
  describeEmbedding,
  IDENTITY_META_KEY,
  identityChanges,
  indexIdentity,
  parseIdentity,
} from "../embedding/identity.js";
import { estimateTokens } from "../text/tokens.js";
import { type IndexContext, targetVectors } from "./context.js";
import { planSync } from "./plan.js";
import { readChanged } from "./read-changed.js";
import { PENDING_VECTORS_META_KEY, parsePendingPaths } from "./report.js";

/** What a sync would do and what it would cost, computed without writing anything. */
export interface SyncEstimate {
  /** Why the index would be rebuilt from scratch (empty: it would not). */
  rebuildReasons: string[];
  /** `provider/model/dims[@endpoint]` that would embed, or `none`. */
  provider: string;
  /** Files that would be (re)indexed, and files that would be removed from the index. */
  files: { index: number; removed: number; skipped: number };
  /** Chunks that would be written. */
  chunks: number;
  /** Chunks whose vectors the cache already holds. */
  cacheHits: number;
  /** Chunks that would be sent to the provider, and their estimated tokens. */
  toEmbed: { chunks: number; tokens: number };
}

/**
 * The cost guard's dry run (`engram sync --dry-run`): read and chunk what changed, look every
 * chunk up in the embedding cache, and count what would be sent to the provider. Nothing is written
 * and the provider is never called.
 */
export async function estimateSync(ctx: IndexContext): Promise<SyncEstimate> {
  const { store, config } = ctx;
  const wanted = indexIdentity({
    analyzer: ctx.analyzer.id,
    chunking: config.chunking,
    embedding: targetVectors(ctx),
  });
  const rebuildReasons = identityChanges(
    parseIdentity(await store.getMeta(IDENTITY_META_KEY)),
    wanted,
  );
  const rebuilt = rebuildReasons.length > 0;
  const pending = new Set<string>(
    rebuilt ? [] : parsePendingPaths(await store.getMeta(PENDING_VECTORS_META_KEY)),
  );
  const plan = await planSync(ctx, { all: rebuilt, redo: pending });
  const estimate: SyncEstimate = {
    rebuildReasons,
    provider: describeEmbedding(wanted.embedding),
    files: { index: 0, removed: rebuilt ? 0 : plan.removed.length, skipped: 0 },
    chunks: 0,
    cacheHits: 0,
    toEmbed: { chunks: 0, tokens: 0 },
  };
  const cache = config.cache.enabled ? store.cache : undefined;
  const seen = new Set<string>();
  for (const file of plan.changed) {
    const known = rebuilt || pending.has(file.path) ? undefined : plan.known.get(file.path);
    const outcome = await readChanged(ctx, file, known, config.sync.maxFileBytes);
    if (outcome.kind === "skipped") estimate.files.skipped++;
    if (outcome.kind !== "index") continue;
    estimate.files.index++;
    estimate.chunks += outcome.chunks.length;
    if (!ctx.embedder) continue;
    const embedder = ctx.embedder;
    const keys = outcome.chunks.map((c) => embeddingCacheKey(embedder, c.hash));
    const hits = cache ? await cache.get(keys) : new Map();
    outcome.chunks.forEach((chunk, i) => {
      const key = keys[i] as string;
      if (hits.has(key)) estimate.cacheHits++;
      if (hits.has(key) || seen.has(key)) return;
      seen.add(key);
      estimate.toEmbed.chunks++;
      estimate.toEmbed.tokens += estimateTokens(chunk.text);
    });
  }
  return estimate;
}
