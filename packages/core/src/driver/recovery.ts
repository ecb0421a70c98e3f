import type { MemoryStore } from "./contract.js";

/**
 * Meta key where a store that rebuilt itself leaves what happened, for the next sync (or
 * `status`) to tell the user once: a JSON array of {@link StoreRecovery}.
 */
export const RECOVERY_META_KEY = "engram.recovered";

/**
 * A damaged index a store moved aside and replaced with an empty one, or one of an older layout it
 * emptied (`outdated`): rebuilt by the next sync.
 */
export interface StoreRecovery {
  /** When (ISO 8601). */
  at: string;
  /** What was wrong, e.g. `file is not a database (SQLITE_NOTADB)`. */
  reason: string;
  /** Not damaged but written by an older version of the store; its cached embeddings were kept. */
  outdated?: boolean;
  /** Where the damaged copy went, when it was kept. */
  movedTo?: string;
}

/** Parse {@link RECOVERY_META_KEY}'s value; anything unreadable is no recovery. */
export function parseRecoveries(json: string | undefined): StoreRecovery[] {
  if (!json) return [];
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value)
      ? value.filter((r): r is StoreRecovery => typeof r?.reason === "string")
      : [];
  } catch {
    return [];
  }
}

/** One line for the user, e.g. in a sync's warnings. */
export function describeRecovery(recovery: StoreRecovery): string {
  if (recovery.outdated) {
    return `the index was written by an older version of engram (${recovery.reason}); it is rebuilt from your Markdown files, with the embeddings it had cached`;
  }
  const kept = recovery.movedTo ? ` (the damaged copy is ${recovery.movedTo})` : "";
  return `the index was found damaged (${recovery.reason}) and replaced; it is rebuilt from your Markdown files${kept}`;
}

/**
 * The recoveries `store` recorded and not yet reported, described, and forgets them (so each is
 * told once). Stores without recoveries answer `[]`.
 */
export async function takeRecoveries(store: MemoryStore): Promise<string[]> {
  const recoveries = parseRecoveries(await store.getMeta(RECOVERY_META_KEY));
  if (recoveries.length === 0) return [];
  await store.setMeta(RECOVERY_META_KEY, "[]");
  return recoveries.map(describeRecovery);
}
