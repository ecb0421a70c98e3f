import type { Table } from "@lancedb/lancedb";
import { equals } from "./sql.js";

/**
 * The meta table's rows, read once per table version. Core reads meta on every search (the index
 * identity, the rerank statistics), and a LanceDB query costs ~2 ms however small the table, where
 * asking the table for its version costs ~0.02 ms. `version()` honours the connection's read
 * consistency interval exactly as a query does, so a cached answer is never staler than a query's
 * would be: another process's commit changes the version, and the next read loads the rows again.
 */
export class MetaReader {
  #cached: { version: number; values: Map<string, string> } | undefined;

  /** The value of `key`, or undefined. */
  async get(meta: Table, key: string): Promise<string | undefined> {
    const version = await meta.version();
    if (this.#cached?.version !== version) {
      // Read after the version: a commit in between leaves newer rows under an older version,
      // which only costs one more read.
      this.#cached = { version, values: await readAll(meta) };
    }
    return this.#cached.values.get(key);
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

/** Insert or replace `key`'s value: one commit. */
export async function upsertMeta(meta: Table, key: string, value: string): Promise<void> {
  await meta
    .mergeInsert("key")
    .whenMatchedUpdateAll()
    .whenNotMatchedInsertAll()
    .execute([{ key, value }]);
}
