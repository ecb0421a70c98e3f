import type { KeyValueStore } from "@engram/core/driver";
import { makeArrowTable, type Table } from "@lancedb/lancedb";
import { keyValueSchema } from "./schema.js";
import { equals, isIn, literal } from "./sql.js";

// The store's two key → value tables: `key_value` (bytes; core's embedding cache) and `meta`
// (text; core's meta and the store's own bookkeeping). Both are written with one merge on `key`.

/**
 * What the map needs from the store: its table, run as a read or as a queued change (core's
 * `defineStore` guards the calls and maps failures).
 */
export interface KeyValueAccess {
  /** Run a read against the table. */
  read<T>(fn: (table: Table) => Promise<T>): Promise<T>;
  /** Run a change in the store's write queue. */
  change<T>(fn: (table: Table) => Promise<T>): Promise<T>;
  /** Record one commit to the table (the store compacts it every so many). */
  committed(): void;
}

/** Keys per `IN (…)` list, so a huge `get` never builds one enormous SQL string. */
const KEYS_PER_QUERY = 1000;

/**
 * The store's key → bytes map in the `key_value` table (core keeps its embedding cache there and
 * decides what stays). One commit per `set` and per `deletePrefix`.
 */
export class LanceDbKeyValue implements KeyValueStore {
  constructor(private readonly access: KeyValueAccess) {}

  async get(keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    if (!keys.length) return found;
    return this.access.read(async (table) => {
      for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
        const rows = (await table
          .query()
          .where(isIn("key", keys.slice(i, i + KEYS_PER_QUERY)))
          .select(["key", "value"])
          .toArray()) as Array<{ key: string; value: Uint8Array }>;
        for (const row of rows) found.set(row.key, Uint8Array.from(row.value));
      }
      return found;
    });
  }

  async set(entries: ReadonlyArray<readonly [key: string, value: Uint8Array]>): Promise<void> {
    if (!entries.length) return;
    await this.access.change(async (table) => {
      await writeEntries(table, entries);
      this.access.committed();
    });
  }

  async deletePrefix(prefix: string): Promise<number> {
    return this.access.change(async (table) => {
      const where = withPrefix(prefix);
      const gone = await table.countRows(where);
      if (gone) {
        await table.delete(where);
        this.access.committed();
      }
      return gone;
    });
  }

  async count(prefix: string): Promise<number> {
    return this.access.read((table) => table.countRows(withPrefix(prefix)));
  }
}

/** Insert or replace entries (a key given twice keeps its last value): one commit. */
export async function writeEntries(
  table: Table,
  entries: ReadonlyArray<readonly [key: string, value: Uint8Array]>,
): Promise<void> {
  const rows = new Map<string, Uint8Array>();
  for (const [key, value] of entries) rows.set(key, value);
  const data = makeArrowTable(
    [...rows].map(([key, value]) => ({ key, value: Buffer.from(value) })),
    { schema: keyValueSchema() },
  );
  await upsertByKey(table, data);
}

/** Keys starting with `prefix`, literally (`%` and `_` are plain characters). */
function withPrefix(prefix: string): string {
  return prefix === "" ? "true" : `starts_with(\`key\`, ${literal(prefix)})`;
}

/**
 * The meta table's rows, read once per table version. Core reads meta on every search (the index
 * identity, the rerank statistics), and a LanceDB query costs ~2 ms however small the table, where
 * asking the table for its version costs ~0.02 ms. `version()` honours the connection's read
 * consistency interval exactly as a query does, so a cached answer is never staler than a query's
 * would be: another process's commit changes the version, and the next read loads the rows again.
 */
export class MetaReader {
  #cached: { version: number; values: Map<string, string> } | undefined;
  /** The check under way, or done and not yet past a turn of the event loop. */
  #shared: Promise<Map<string, string>> | undefined;

  /** The value of `key`, or undefined. */
  async get(meta: Table, key: string): Promise<string | undefined> {
    return (await this.#current(meta)).get(key);
  }

  /** The values of `keys` that are present, after one version check. */
  async getMany(meta: Table, keys: readonly string[]): Promise<Map<string, string>> {
    const values = await this.#current(meta);
    const found = new Map<string, string>();
    for (const key of keys) {
      const value = values.get(key);
      if (value !== undefined) found.set(key, value);
    }
    return found;
  }

  /**
   * Forget the check under way: the store committed to the meta table, and a read that starts
   * now must see it.
   */
  committed(): void {
    this.#shared = undefined;
  }

  /**
   * The rows at the table's latest version. Calls made while a check is under way, or before the
   * event loop turns once it is done, share it: a search through a copy of the index asks three
   * times at once (core's meta, then each side for the generation), and in a search a check
   * costs ~0.5 ms of CPU, where alone it costs ~0.1 ms (see `ChunksShape`).
   */
  #current(meta: Table): Promise<Map<string, string>> {
    if (this.#shared) return this.#shared;
    const shared = this.#check(meta);
    const expire = () => {
      if (this.#shared === shared) this.#shared = undefined;
    };
    shared.then(() => setImmediate(expire), expire);
    this.#shared = shared;
    return shared;
  }

  async #check(meta: Table): Promise<Map<string, string>> {
    const version = await meta.version();
    if (this.#cached?.version !== version) {
      // Read after the version: a commit in between leaves newer rows under an older version,
      // which only costs one more read.
      this.#cached = { version, values: await readAll(meta) };
    }
    return this.#cached.values;
  }
}

async function readAll(meta: Table): Promise<Map<string, string>> {
  const rows = (await meta.query().select(["key", "value"]).toArray()) as Array<{
    key: string;
    value: string;
  }>;
  return new Map(rows.map((row) => [row.key, row.value]));
}

/** The value of `key` straight from the table (for the store's own bookkeeping on open). */
export async function readMeta(meta: Table, key: string): Promise<string | undefined> {
  const rows = await meta.query().where(equals("key", key)).select(["value"]).toArray();
  return (rows[0] as { value: string } | undefined)?.value;
}

/** Insert or replace `key`'s value in the meta table: one commit. */
export async function upsertMeta(meta: Table, key: string, value: string): Promise<void> {
  await upsertByKey(meta, [{ key, value }]);
}

function upsertByKey(table: Table, rows: Parameters<Table["add"]>[0]): Promise<unknown> {
  return table.mergeInsert("key").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
}
