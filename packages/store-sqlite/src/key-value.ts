import type { KeyValueStore } from "@engram/core/driver";
import type { StatementCache } from "./statements.js";

/** Runs `fn` against the open connection, turning SQLite failures into EngramErrors. */
export type Guard = <T>(action: string, fn: (sql: StatementCache) => T) => T;

/** The table of {@link SqliteKeyValue} (schema step 6 → 7). */
export const KEY_VALUE_TABLE = "key_value";

const SELECT = `SELECT value FROM ${KEY_VALUE_TABLE} WHERE key = ?`;
const UPSERT = `INSERT INTO ${KEY_VALUE_TABLE} (key, value) VALUES (?, ?)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
/** Keys starting with the prefix (bound twice): compared as text, so `%` and `_` are plain. */
const WITH_PREFIX = "substr(key, 1, length(?)) = ?";
const DELETE_PREFIX = `DELETE FROM ${KEY_VALUE_TABLE} WHERE ${WITH_PREFIX}`;
const COUNT_PREFIX = `SELECT count(*) AS n FROM ${KEY_VALUE_TABLE} WHERE ${WITH_PREFIX}`;

/**
 * The store's key → bytes map in the `key_value` table (core keeps its embedding cache there and
 * decides what stays). Survives `reset`; shared by every process that opens the file.
 */
export class SqliteKeyValue implements KeyValueStore {
  constructor(private readonly guard: Guard) {}

  async get(keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    return this.guard("read the key-value table", (sql) => {
      const found = new Map<string, Uint8Array>();
      for (const key of keys) {
        const row = sql.get(SELECT).get(key) as { value: Buffer } | undefined;
        if (row !== undefined) found.set(key, new Uint8Array(row.value));
      }
      return found;
    });
  }

  async set(entries: ReadonlyArray<readonly [key: string, value: Uint8Array]>): Promise<void> {
    this.guard("write the key-value table", (sql) => {
      sql.db
        .transaction(() => {
          for (const [key, value] of entries) {
            sql.get(UPSERT).run(key, Buffer.from(value.buffer, value.byteOffset, value.byteLength));
          }
        })
        .immediate();
    });
  }

  async deletePrefix(prefix: string): Promise<number> {
    return this.guard(
      "clear the key-value table",
      (sql) => sql.get(DELETE_PREFIX).run(prefix, prefix).changes,
    );
  }

  async count(prefix: string): Promise<number> {
    return this.guard(
      "read the key-value table",
      (sql) => (sql.get(COUNT_PREFIX).get(prefix, prefix) as { n: number }).n,
    );
  }
}
