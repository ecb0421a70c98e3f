import { type EmbedStats, embedTexts, type TokenBudget } from "../embedding/embed-texts.js";
import type { Embedder } from "../embedding/embedder.js";
import { IDENTITY_META_KEY, type IndexIdentity, serializeIdentity } from "../embedding/identity.js";
import type { MemoryStore } from "../store/store.js";
import type { IndexContext } from "./context.js";
import { PENDING_VECTORS_META_KEY } from "./report.js";

/** Chunks staged per round (their vectors are cached, then dropped from memory). */
const STAGE_ROUND = 512;

/** How far staging the new vectors got. */
export interface StageOutcome {
  /** Chunks of the index whose new vectors are in the cache. */
  staged: number;
  /** Chunks in the index. */
  total: number;
  /** Why staging stopped early (a provider failure or the token budget). */
  stopped?: unknown;
}

/**
 * Embed every chunk the index holds with `embedder` into the embedding cache, leaving the index as
 * it is: while a provider or model swap is paid for, search keeps the old vectors and the old
 * provider. Vectors already cached cost nothing, so an interrupted staging resumes where it stopped.
 */
export async function stageVectors(
  ctx: IndexContext,
  embedder: Embedder,
  options: {
    signal?: AbortSignal | undefined;
    budget?: TokenBudget | undefined;
    stats: EmbedStats;
    /** Errors that end staging early (reported in `stopped`); others are thrown. */
    isFailure: (error: unknown) => boolean;
  },
): Promise<StageOutcome> {
  const { store } = ctx;
  const cache = store.cache;
  const outcome: StageOutcome = { staged: 0, total: (await store.stats()).chunks };
  let inputs: Array<{ text: string; hash: string }> = [];
  const round = async () => {
    if (!inputs.length || outcome.stopped !== undefined) return;
    try {
      await embedTexts(inputs, embedder, {
        cache,
        signal: options.signal,
        budget: options.budget,
        stats: options.stats,
      });
      outcome.staged += inputs.length;
    } catch (error) {
      if (!options.isFailure(error)) throw error;
      outcome.stopped = error;
    }
    inputs = [];
  };
  // File by file, so only one round of texts is held at a time.
  for (const file of await store.listFiles()) {
    for (const chunk of await store.getChunks(file.path)) {
      inputs.push({ text: chunk.text, hash: chunk.hash });
    }
    if (inputs.length >= STAGE_ROUND) await round();
    if (outcome.stopped !== undefined) break;
  }
  await round();
  return outcome;
}

/**
 * Point the index at new vectors: every indexed file owes its vectors (recorded first, so a crash
 * at any step only causes extra work), the vector space is reset to the new dims and the identity
 * is written. With `resetVectors` the keyword index stays and keeps answering while the sync
 * re-writes each file with its (cached) vectors; a store without it is reset whole.
 *
 * @returns true when the keyword index was kept.
 */
export async function switchVectors(
  store: MemoryStore,
  wanted: IndexIdentity,
  pending: Set<string>,
): Promise<boolean> {
  const dims = wanted.embedding?.dims ?? null;
  if (!store.resetVectors) {
    await store.reset({ dims });
    pending.clear();
    await store.setMeta(PENDING_VECTORS_META_KEY, "[]");
    await store.setMeta(IDENTITY_META_KEY, serializeIdentity(wanted));
    return false;
  }
  if (dims === null) pending.clear();
  else for (const file of await store.listFiles()) pending.add(file.path);
  await store.setMeta(PENDING_VECTORS_META_KEY, JSON.stringify([...pending]));
  await store.resetVectors({ dims });
  await store.setMeta(IDENTITY_META_KEY, serializeIdentity(wanted));
  return true;
}
