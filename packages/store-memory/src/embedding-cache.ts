import { type EmbeddingCacheStore, EngramError } from "@engram/core";

/**
 * The embedding cache: a `Map` whose insertion order is the recency order (least recently used
 * first). A `get` hit and a `set` move the key to the end, so `prune` evicts from the front and
 * keeps exactly the most recently used entries. Vectors are copied in and out, so callers can
 * never change a cached vector.
 */
export class MemoryEmbeddingCache implements EmbeddingCacheStore {
  readonly #entries = new Map<string, Float32Array>();

  /**
   * @param use - throws when the store cannot be used now (closed, not initialised)
   * @param changed - called after every change (recency included), so snapshots know to save
   */
  constructor(
    private readonly use: (action: string) => void,
    private readonly changed: () => void,
  ) {}

  async get(keys: readonly string[]): Promise<Map<string, Float32Array>> {
    this.use("read the embedding cache");
    const found = new Map<string, Float32Array>();
    for (const key of keys) {
      if (found.has(key)) continue;
      const vector = this.#entries.get(key);
      if (vector === undefined) continue;
      this.#entries.delete(key);
      this.#entries.set(key, vector);
      found.set(key, vector.slice());
    }
    if (found.size > 0) this.changed();
    return found;
  }

  async set(entries: ReadonlyArray<readonly [key: string, vector: Float32Array]>): Promise<void> {
    this.use("write the embedding cache");
    for (const [key, vector] of entries) {
      this.#entries.delete(key);
      this.#entries.set(key, new Float32Array(vector));
    }
    if (entries.length > 0) this.changed();
  }

  async size(): Promise<number> {
    this.use("read the embedding cache");
    return this.#entries.size;
  }

  async prune(maxEntries: number): Promise<number> {
    this.use("prune the embedding cache");
    if (!Number.isFinite(maxEntries) || maxEntries < 0) {
      throw new EngramError("INVALID_ARGUMENT", `prune(${maxEntries}): maxEntries must be ≥ 0.`, {
        hint: "Pass the number of cache entries to keep (e.g. 50000).",
      });
    }
    const excess = this.#entries.size - Math.floor(maxEntries);
    if (excess <= 0) return 0;
    let evicted = 0;
    for (const key of this.#entries.keys()) {
      if (evicted === excess) break;
      this.#entries.delete(key);
      evicted++;
    }
    this.changed();
    return evicted;
  }

  async clear(): Promise<void> {
    this.use("clear the embedding cache");
    if (this.#entries.size === 0) return;
    this.#entries.clear();
    this.changed();
  }

  /** Every entry, least recently used first (the vectors themselves: do not mutate them). */
  entries(): Array<[key: string, vector: Float32Array]> {
    return [...this.#entries];
  }

  /** Replace every entry with `entries` (least recently used first), taking ownership of them. */
  load(entries: Iterable<readonly [key: string, vector: Float32Array]>): void {
    this.#entries.clear();
    for (const [key, vector] of entries) {
      this.#entries.delete(key);
      this.#entries.set(key, vector);
    }
  }
}
