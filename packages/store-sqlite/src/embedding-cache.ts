import { type EmbeddingCacheStore, EngramError } from "@engram/core";
import { blobToVector, vectorToBlob } from "./rows.js";
import type { StatementCache } from "./statements.js";

/** Runs `fn` against the open connection, turning SQLite failures into EngramErrors. */
export type Guard = <T>(action: string, fn: (sql: StatementCache) => T) => T;

/** `last_used` for the next use: one more than any so far, so LRU order is exact across processes. */
const NEXT_USE = "(SELECT coalesce(max(last_used), 0) + 1 FROM embedding_cache)";

const SELECT = "SELECT embedding FROM embedding_cache WHERE key = ?";
const TOUCH = `UPDATE embedding_cache SET last_used = ${NEXT_USE} WHERE key = ?`;
const UPSERT = `INSERT INTO embedding_cache (key, embedding, dims, last_used) VALUES (?, ?, ?, ${NEXT_USE})
  ON CONFLICT (key) DO UPDATE SET
    embedding = excluded.embedding, dims = excluded.dims, last_used = excluded.last_used`;
const COUNT = "SELECT count(*) AS n FROM embedding_cache";
const EVICT = `DELETE FROM embedding_cache WHERE key IN (
  SELECT key FROM embedding_cache ORDER BY last_used, key LIMIT ?)`;
const CLEAR = "DELETE FROM embedding_cache";

/**
 * The embedding cache in the `embedding_cache` table. Recency is a counter rather than a clock:
 * every `get` hit and every `set` takes the next value, in call order, so `prune` keeps exactly the
 * most recently used entries (also when several processes share the index).
 */
export class SqliteEmbeddingCache implements EmbeddingCacheStore {
  constructor(private readonly guard: Guard) {}

  async get(keys: readonly string[]): Promise<Map<string, Float32Array>> {
    return this.guard("read the embedding cache", (sql) => {
      const found = new Map<string, Float32Array>();
      sql.db
        .transaction(() => {
          for (const key of keys) {
            if (found.has(key)) continue;
            const row = sql.get(SELECT).get(key) as { embedding: Buffer } | undefined;
            if (row === undefined) continue;
            found.set(key, blobToVector(row.embedding));
            sql.get(TOUCH).run(key);
          }
        })
        .immediate();
      return found;
    });
  }

  async set(entries: ReadonlyArray<readonly [key: string, vector: Float32Array]>): Promise<void> {
    this.guard("write the embedding cache", (sql) => {
      sql.db
        .transaction(() => {
          for (const [key, vector] of entries) {
            sql.get(UPSERT).run(key, vectorToBlob(vector), vector.length);
          }
        })
        .immediate();
    });
  }

  async size(): Promise<number> {
    return this.guard("read the embedding cache", (sql) => count(sql));
  }

  async prune(maxEntries: number): Promise<number> {
    if (!Number.isFinite(maxEntries) || maxEntries < 0) {
      throw new EngramError("INVALID_ARGUMENT", `prune(${maxEntries}): maxEntries must be ≥ 0.`, {
        hint: "Pass the number of cache entries to keep (e.g. 50000).",
      });
    }
    return this.guard("prune the embedding cache", (sql) =>
      sql.db
        .transaction(() => {
          const excess = count(sql) - Math.floor(maxEntries);
          return excess > 0 ? sql.get(EVICT).run(excess).changes : 0;
        })
        .immediate(),
    );
  }

  async clear(): Promise<void> {
    this.guard("clear the embedding cache", (sql) => {
      sql.get(CLEAR).run();
    });
  }
}

function count(sql: StatementCache): number {
  return (sql.get(COUNT).get() as { n: number }).n;
}
