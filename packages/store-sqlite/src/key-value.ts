import type { KeyValueStore } from "@engram/core/driver";
import type { StatementCache } from "./connection.js";

/** Runs `fn` against the open connection (core's `defineStore` guards the calls). */
export type Use = <T>(fn: (sql: StatementCache) => T) => T;

/** The table of {@link SqliteKeyValue} (schema step 6 → 7). */
export const KEY_VALUE_TABLE = "key_value";

const SELECT = `SELECT value FROM ${KEY_VALUE_TABLE} WHERE key = ?`;
const UPSERT = `INSERT INTO ${KEY_VALUE_TABLE} (key, value) VALUES (?, ?)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
/**
 * Keys starting with a prefix, as a range of the primary key (`key >= prefix AND key < next`,
 * where `next` is the prefix with its last character incremented; text compares by code point),
 * so counting or deleting a small part of a large map reads only that part.
 */
const IN_RANGE = "key >= ? AND key < ?";
const DELETE_RANGE = `DELETE FROM ${KEY_VALUE_TABLE} WHERE ${IN_RANGE}`;
const COUNT_RANGE = `SELECT count(*) AS n FROM ${KEY_VALUE_TABLE} WHERE ${IN_RANGE}`;
const DELETE_ALL = `DELETE FROM ${KEY_VALUE_TABLE}`;
const COUNT_ALL = `SELECT count(*) AS n FROM ${KEY_VALUE_TABLE}`;
/** The same by comparing the key's start (bound twice), for a prefix ending in U+10FFFF. */
const BY_SUBSTR = "substr(key, 1, length(?)) = ?";
const DELETE_SUBSTR = `DELETE FROM ${KEY_VALUE_TABLE} WHERE ${BY_SUBSTR}`;
const COUNT_SUBSTR = `SELECT count(*) AS n FROM ${KEY_VALUE_TABLE} WHERE ${BY_SUBSTR}`;

/**
 * The store's key → bytes map in the `key_value` table (core keeps its embedding cache there and
 * decides what stays). Survives `reset`; shared by every process that opens the file.
 */
export class SqliteKeyValue implements KeyValueStore {
  constructor(private readonly use: Use) {}

  async get(keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    return this.use((sql) => {
      const found = new Map<string, Uint8Array>();
      for (const key of keys) {
        const row = sql.get(SELECT).get(key) as { value: Buffer } | undefined;
        if (row !== undefined) found.set(key, new Uint8Array(row.value));
      }
      return found;
    });
  }

  async set(entries: ReadonlyArray<readonly [key: string, value: Uint8Array]>): Promise<void> {
    this.use((sql) => {
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
    return this.use((sql) => {
      if (prefix === "") return sql.get(DELETE_ALL).run().changes;
      const next = nextAfter(prefix);
      return next === undefined
        ? sql.get(DELETE_SUBSTR).run(prefix, prefix).changes
        : sql.get(DELETE_RANGE).run(prefix, next).changes;
    });
  }

  async count(prefix: string): Promise<number> {
    return this.use((sql) => {
      if (prefix === "") return (sql.get(COUNT_ALL).get() as { n: number }).n;
      const next = nextAfter(prefix);
      const row =
        next === undefined
          ? sql.get(COUNT_SUBSTR).get(prefix, prefix)
          : sql.get(COUNT_RANGE).get(prefix, next);
      return (row as { n: number }).n;
    });
  }
}

/**
 * The smallest string greater than every string that starts with `prefix` (non-empty): its last
 * code point incremented; undefined when that is U+10FFFF.
 */
function nextAfter(prefix: string): string | undefined {
  const chars = [...prefix];
  const last = (chars.pop() as string).codePointAt(0) as number;
  return last >= 0x10ffff ? undefined : `${chars.join("")}${String.fromCodePoint(last + 1)}`;
}
