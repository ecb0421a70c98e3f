import { type EmbeddingCacheStore, EngramError } from "@engram/core";
import type { Table } from "@lancedb/lancedb";
import { column, isIn } from "./sql.js";

/** What the cache needs from the store: its table, run as a read or as a queued change. */
export interface CacheAccess {
  /** Run a read against the cache table (failures become EngramErrors). */
  read<T>(action: string, fn: (table: Table) => Promise<T>): Promise<T>;
  /** Run a change in the store's write queue (failures become EngramErrors). */
  change<T>(action: string, fn: (table: Table) => Promise<T>): Promise<T>;
  /** Record one commit to the cache table (the store compacts it every so many). */
  committed(): void;
}

/** A cache row as written. */
type CacheRow = {
  key: string;
  vector: number[];
  last_used: number;
};

/** Keys per `IN (…)` list, so a huge `get` or `prune` never builds one enormous SQL string. */
const KEYS_PER_QUERY = 1000;

/**
 * The embedding cache in the `embedding_cache` table. Recency is a counter rather than a clock:
 * every `get` hit and every `set` takes the next value, in call order, so `prune` keeps exactly the
 * most recently used entries. The counter continues from the largest stored value when a store
 * opens; two processes writing the cache at once may hand out equal values, which only blurs the
 * order between their entries.
 */
export class LanceDbEmbeddingCache implements EmbeddingCacheStore {
  #nextUse = 1;

  constructor(private readonly access: CacheAccess) {}

  /** Continue the use counter after the largest value stored. Called when the store opens. */
  async load(): Promise<void> {
    const used = await this.access.read("read the embedding cache", async (table) => {
      let max = 0;
      for await (const batch of table.query().select(["last_used"])) {
        const values = batch.getChild("last_used");
        if (!values) continue;
        for (const value of values) if (typeof value === "number" && value > max) max = value;
      }
      return max;
    });
    this.#nextUse = used + 1;
  }

  async get(keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const wanted = [...new Set(keys)];
    const found = new Map<string, Float32Array>();
    if (wanted.length === 0) return found;
    await this.access.change("read the embedding cache", async (table) => {
      for (let i = 0; i < wanted.length; i += KEYS_PER_QUERY) {
        const slice = wanted.slice(i, i + KEYS_PER_QUERY);
        const rows = (await table
          .query()
          .where(isIn("key", slice))
          .select(["key", "vector"])
          .toArray()) as Array<{ key: string; vector: { toArray(): Float32Array } }>;
        for (const row of rows) found.set(row.key, Float32Array.from(row.vector.toArray()));
      }
      // Mark the hits used, in the order they were asked for.
      const touched = wanted.flatMap((key): CacheRow[] => {
        const vector = found.get(key);
        return vector ? [{ key, vector: Array.from(vector), last_used: this.#nextUse++ }] : [];
      });
      if (touched.length) {
        await upsert(table, touched);
        this.access.committed();
      }
    });
    return found;
  }

  async set(entries: ReadonlyArray<readonly [key: string, vector: Float32Array]>): Promise<void> {
    if (entries.length === 0) return;
    await this.access.change("write the embedding cache", async (table) => {
      // A key set twice in one call keeps its last vector and its last position.
      const rows = new Map<string, CacheRow>();
      for (const [key, vector] of entries) {
        rows.delete(key);
        rows.set(key, { key, vector: Array.from(vector), last_used: 0 });
      }
      for (const row of rows.values()) row.last_used = this.#nextUse++;
      await upsert(table, [...rows.values()]);
      this.access.committed();
    });
  }

  async size(): Promise<number> {
    return this.access.read("read the embedding cache", (table) => table.countRows());
  }

  async prune(maxEntries: number): Promise<number> {
    if (!Number.isFinite(maxEntries) || maxEntries < 0) {
      throw new EngramError("INVALID_ARGUMENT", `prune(${maxEntries}): maxEntries must be ≥ 0.`, {
        hint: "Pass the number of cache entries to keep (e.g. 50000).",
      });
    }
    return this.access.change("prune the embedding cache", async (table) => {
      const excess = (await table.countRows()) - Math.floor(maxEntries);
      if (excess <= 0) return 0;
      const uses: Array<{ key: string; used: number }> = [];
      for await (const batch of table.query().select(["key", "last_used"])) {
        const keys = batch.getChild("key");
        const used = batch.getChild("last_used");
        if (!keys || !used) continue;
        for (let i = 0; i < batch.numRows; i++) {
          uses.push({ key: String(keys.get(i)), used: Number(used.get(i)) });
        }
      }
      uses.sort((a, b) => a.used - b.used || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const evicted = uses.slice(0, excess);
      const cutoff = evicted[evicted.length - 1]?.used ?? 0;
      // Everything used before the cutoff goes in one condition; the (rare) equal counters at the
      // cutoff are named one by one, so exactly `excess` entries go.
      const atCutoff = evicted.filter((e) => e.used === cutoff).map((e) => e.key);
      const below = `${column("last_used")} < ${cutoff}`;
      for (let i = 0; i < atCutoff.length; i += KEYS_PER_QUERY) {
        await table.delete(isIn("key", atCutoff.slice(i, i + KEYS_PER_QUERY)));
        this.access.committed();
      }
      await table.delete(below);
      this.access.committed();
      return evicted.length;
    });
  }

  async clear(): Promise<void> {
    await this.access.change("clear the embedding cache", async (table) => {
      await table.delete("true");
      this.access.committed();
    });
  }
}

async function upsert(table: Table, rows: CacheRow[]): Promise<void> {
  await table.mergeInsert("key").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
}
